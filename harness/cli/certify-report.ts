import { dirname, resolve } from 'node:path';
import { statSync } from 'node:fs';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { parseFlags } from '../../src/cli/args.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import { readEvidence } from '../evidence/evidence-writer.ts';
import { writeReportFiles } from '../reporters/report-files.ts';

/**
 * `dpone certify report FILE [--out DIR]`: re-renders index.html, summary.md and junit.xml from an
 * evidence file (default DIR: the evidence's own folder). It does not verify: run `certify verify`
 * for that. Exit 0; 2 for bad input.
 */
export const run: CommandRun = async (args: readonly string[], io: CliIO) => {
  const { values, positionals } = parseFlags(args, { out: { type: 'string' } }, { positionals: true });
  if (positionals.length !== 1)
    throw invalidInput('certify report takes exactly one evidence FILE', { field: 'FILE' });
  const path = resolve(io.cwd, positionals[0]!);
  const evidence = readEvidence(path);
  const folder = statSync(path, { throwIfNoEntry: false })?.isDirectory() ? path : dirname(path);
  const dir = resolve(io.cwd, values.out ?? folder);
  for (const file of await writeReportFiles(evidence, dir)) io.stdout.write(`wrote ${file}\n`);
  return 0;
};
