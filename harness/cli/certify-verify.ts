import { resolve } from 'node:path';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { parseFlags } from '../../src/cli/args.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import { readEvidence, verifyEvidence } from '../evidence/evidence-writer.ts';

/**
 * `dpone certify verify FILE [--json]`: recomputes the evidence digest and re-runs the checkers on
 * the stored journal histories and target snapshots: the evidence is self-consistent. It says
 * nothing of who produced it (an unkeyed digest anyone can recompute): only a signature does. Exit 0 when everything agrees; exit 1
 * printing each difference (a hand-edited verdict, a tampered snapshot); exit 2 for bad input.
 */
export const run: CommandRun = async (args: readonly string[], io: CliIO) => {
  const { values, positionals } = parseFlags(args, { json: { type: 'boolean' } }, { positionals: true });
  if (positionals.length !== 1)
    throw invalidInput('certify verify takes exactly one evidence FILE', { field: 'FILE' });
  const file = positionals[0]!;
  const evidence = readEvidence(resolve(io.cwd, file));
  const result = verifyEvidence(evidence);
  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({ schema: 'dpone.certify.verify/v1', file, digest: evidence.digest ?? null, ...result })}\n`,
    );
  } else if (result.ok) {
    io.stdout.write(
      `verified: ${file} (${evidence.cells.length} cells, digest ${evidence.digest}, verdict ${evidence.verdict})\n` +
        'checked: the evidence is self-consistent (schema, digest, every checker re-run on its stored data)\n' +
        'not checked: who produced it, or that its cells ran; only a signed record says who (dpone certify explain RECORD)\n',
    );
  } else {
    io.stdout.write(`NOT verified: ${file} — ${result.differences.length} difference(s):\n`);
    for (const difference of result.differences) io.stdout.write(`  ${difference}\n`);
  }
  return result.ok ? 0 : 1;
};
