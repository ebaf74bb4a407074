import { dirname, resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { parseFlags } from '../../src/cli/args.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import { readEvidence } from '../evidence/evidence-writer.ts';
import { checkIntegrity } from '../reporters/integrity.ts';
import { writeReportFiles } from '../reporters/report-files.ts';
import { prepareOutDir } from '../runner/out-dir.ts';
import { reviewGate } from './gate-review.ts';
import { gateSentence } from '../reporters/report-gate.ts';

/**
 * `dpone certify report FILE [--out DIR]`: re-renders index.html, summary.md and junit.xml from an
 * evidence file (default DIR: the evidence's own folder). It checks the evidence as `certify verify`
 * does: a file changed after the run wrote it still renders, under a "NOT VERIFIED: digest does not
 * match" banner at the top of every report, and the command exits 1. The gate is evaluated as
 * `certify gate` would (relative to the current folder) and its answer heads every report and is
 * printed last. Exit 0; 2 for bad input.
 */
export const run: CommandRun = async (args: readonly string[], io: CliIO) => {
  const { values, positionals } = parseFlags(args, { out: { type: 'string' } }, { positionals: true });
  if (positionals.length !== 1)
    throw invalidInput('certify report takes exactly one evidence FILE', { field: 'FILE' });
  const path = resolve(io.cwd, positionals[0]!);
  const evidence = readEvidence(path);
  const folder = statSync(path, { throwIfNoEntry: false })?.isDirectory() ? path : dirname(path);
  const dir = resolve(io.cwd, values.out ?? folder);
  await prepareOutDir(dir, values.out === undefined ? 'FILE' : '--out');
  const integrity = checkIntegrity(evidence);
  const gate = await reviewGate(evidence, io.cwd);
  for (const file of await writeReportFiles(evidence, dir, integrity, gate))
    io.stdout.write(`wrote ${file}\n`);
  io.stdout.write(`${gateSentence(gate)}\n`);
  if (integrity.ok) return 0;
  io.stderr.write(`dpone certify report: ${integrity.headline} (the reports say so at their top)\n`);
  return 1;
};
