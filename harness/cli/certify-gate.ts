import { dirname, resolve } from 'node:path';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { parseFlags, required } from '../../src/cli/args.ts';
import { resolveRouteId } from '../../src/cli/route-names.ts';
import { readEvidence } from '../evidence/evidence-writer.ts';
import { RECORD_FILES, certificationStatement, writeJsonFile } from '../gate/certification-record.ts';
import { gateEvidence } from '../gate/gate-evidence.ts';
import { formatGateLine } from '../gate/gate.ts';
import { prepareOutDir } from '../runner/out-dir.ts';

/**
 * `dpone certify gate --route ID --evidence FILE [--out DIR] [--json]`: one line per mandatory
 * acceptance item (and precondition: integrity, scope, plan, the shipped full suite, the code
 * digests) with its status and how many cells decided it. It reviews a file someone hands it, so
 * it signs nothing: when every line is PASS it writes DIR/certification.review.intoto.json (default
 * DIR: the evidence's folder), an unsigned record marked review-only that no runtime trusts. Only a
 * run signs (`certify run --gate --sign`, `certify merge --gate --sign`). Exit 0 only when every
 * line is PASS, 1 otherwise (nothing is written), 2 for bad input.
 */
export const run: CommandRun = async (args: readonly string[], io: CliIO) => {
  const { values } = parseFlags(args, {
    route: { type: 'string' },
    evidence: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    connector: { type: 'string', multiple: true },
  });
  // An alias (`--route <engine>`) gates its full id: the certification names the full id.
  const named = required(values.route, '--route');
  const route = resolveRouteId(named)?.id ?? named;
  const file = required(values.evidence, '--evidence');
  const evidenceFile = resolve(io.cwd, file);
  const dir = resolve(io.cwd, values.out ?? dirname(evidenceFile));
  await prepareOutDir(dir, '--out', { create: false });
  const evidence = readEvidence(evidenceFile);
  const gate = await gateEvidence(evidence, route, io.cwd, values.connector ?? []);
  let written: string | null = null;
  if (gate.passed)
    written = await writeJsonFile(
      dir,
      RECORD_FILES.unsigned,
      certificationStatement(evidence, gate, new Date(), true),
    );
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({ schema: 'dpone.certify.gate/v1', route, evidence: file, passed: gate.passed, lines: gate.lines, certification: written, signed: false })}\n`,
    );
  } else {
    io.stdout.write(`dpone certify gate: route ${route}, evidence ${file}\n`);
    for (const line of gate.lines) io.stdout.write(`${formatGateLine(line)}\n`);
    io.stdout.write(
      gate.passed
        ? `gate PASS: unsigned record written for review only (no runtime trusts it; only certify run --gate --sign signs): ${written}\n`
        : 'gate FAIL: the route stays on legacy retry semantics (no certification written)\n',
    );
  }
  return gate.passed ? 0 : 1;
};
