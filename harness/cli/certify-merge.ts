import { resolve } from 'node:path';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { prepareOutDir } from './out-dir.ts';
import { parseFlags, required } from '../../src/cli/args.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import { verdictExitCode } from '../verdict.ts';
import { readEvidence, verifyEvidence, writeEvidence } from '../evidence/evidence-writer.ts';
import { unionRuns } from '../merge/run-union.ts';
import { mergeShards } from '../merge/shard-merge.ts';
import { checkPlan } from '../plan/plan-check.ts';
import { writeReportFiles } from '../reporters/report-files.ts';

/**
 * `dpone certify merge FILE… --out DIR`: verifies every shard, combines them into DIR/evidence.json
 * (plus index.html, summary.md, junit.xml) as if the run had been whole. Given whole runs instead
 * (no shard among them), it joins runs over disjoint scenario files of one route and build into
 * one run over all of them (merge/run-union.ts). The merged cells must be
 * exactly the plan derived again from the scenario files (relative to the working folder), seed and
 * the shards' recorded traces. Exit codes follow the
 * merged verdict like `certify run` (0 PASS, 1 FAIL, 3 UNVERIFIED/UNKNOWN); 1 also when a shard
 * does not verify; 2 for bad input or shards that do not add up to one run.
 */
export const run: CommandRun = async (args: readonly string[], io: CliIO) => {
  const { values, positionals } = parseFlags(args, { out: { type: 'string' } }, { positionals: true });
  const out = resolve(io.cwd, required(values.out, '--out'));
  await prepareOutDir(out, '--out');
  if (positionals.length === 0)
    throw invalidInput('certify merge needs the shard evidence FILEs', { field: 'FILE' });
  const shards = positionals.map((file) => ({ file, evidence: readEvidence(resolve(io.cwd, file)) }));
  const broken = shards
    .map(({ file, evidence }) => ({ file, result: verifyEvidence(evidence) }))
    .filter(({ result }) => !result.ok);
  if (broken.length > 0) {
    for (const { file, result } of broken) {
      io.stdout.write(`NOT verified: ${file}\n`);
      for (const difference of result.differences) io.stdout.write(`  ${difference}\n`);
    }
    io.stdout.write('merge refused: every shard must verify\n');
    return 1;
  }
  const inputs = shards.map(({ evidence }) => evidence);
  const whole = inputs.filter((evidence) => evidence.shard === undefined).length;
  if (whole > 0 && whole < inputs.length)
    throw invalidInput('cannot merge: give either the shards of one run or whole runs, not both', {
      field: 'FILE',
    });
  const merged = whole > 1 ? unionRuns(inputs) : mergeShards(inputs);
  // The cells must be the plan derived again here, not just what the shards say they planned.
  const plan = await checkPlan(merged, io.cwd);
  if (!plan.ok) throw invalidInput(`cannot merge: ${plan.detail}`, { field: 'FILE' });
  const written = writeEvidence(out, merged, { latestRoot: null });
  await writeReportFiles(written.evidence, out);
  io.stdout.write(
    `merged ${shards.length} ${whole > 1 ? 'runs' : 'shards'}: ${merged.cells.length} cells, verdict ${merged.verdict}, digest ${written.evidence.digest}\nwrote ${written.file}\n`,
  );
  return verdictExitCode(merged.verdict);
};
