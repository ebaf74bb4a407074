import { resolve } from 'node:path';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { prepareOutDir } from '../runner/out-dir.ts';
import { parseFlags, required } from '../../src/cli/args.ts';
import { invalidInput } from '../../src/contracts/errors.ts';
import { verdictExitCode } from '../verdict.ts';
import { readEvidence, verifyEvidence, writeEvidence } from '../evidence/evidence-writer.ts';
import { unionRuns } from '../merge/run-union.ts';
import { mergeShards } from '../merge/shard-merge.ts';
import { checkPlan } from '../plan/plan-check.ts';
import { SIGNING_FLAGS, checkSigningFlags, gateAndSign } from './run-signing.ts';
import { unsignedInputs } from './merge-signatures.ts';
import { writeReportFiles } from '../reporters/report-files.ts';

/**
 * `dpone certify merge FILE… --out DIR [--gate] [--sign --key FILE|--keyless --policy POLICY]`:
 * with `--sign`, first refuses any input whose `evidence.sigstore.json` (written beside it by
 * `certify run --sign`) does not verify under a signer of POLICY, then signs what it produced
 * (the certification with `--gate`, else the merged evidence). It verifies every shard, combines them into DIR/evidence.json
 * (plus index.html, summary.md, junit.xml) as if the run had been whole. Given whole runs instead
 * (no shard among them), it joins runs over disjoint scenario files of one route and build into
 * one run over all of them (merge/run-union.ts). The merged cells must be
 * exactly the plan derived again from the scenario files (relative to the working folder), seed and
 * the shards' recorded traces. Exit codes follow the
 * merged verdict like `certify run` (0 PASS, 1 FAIL, 3 UNVERIFIED/UNKNOWN); 1 also when a shard
 * does not verify; 2 for bad input or shards that do not add up to one run.
 */
export const run: CommandRun = async (args: readonly string[], io: CliIO) => {
  const { values, positionals } = parseFlags(
    args,
    { out: { type: 'string' }, policy: { type: 'string' }, ...SIGNING_FLAGS },
    { positionals: true },
  );
  const out = resolve(io.cwd, required(values.out, '--out'));
  const signing = await checkSigningFlags(values, io, true);
  await prepareOutDir(out, '--out');
  if (positionals.length === 0)
    throw invalidInput('certify merge needs the shard evidence FILEs', { field: 'FILE' });
  const shards = positionals.map((file) => ({ file, evidence: readEvidence(resolve(io.cwd, file)) }));
  // What this process signs must come only from runs it can trust: each input's own signature first.
  if (signing.sign !== null) {
    const refused = await unsignedInputs(shards, values.policy, io);
    if (refused.length > 0) {
      for (const line of refused) io.stdout.write(`NOT signed by a trusted signer: ${line}\n`);
      io.stdout.write(
        'merge refused: with --sign every input must carry a signature (evidence.sigstore.json beside it) that verifies\n',
      );
      return 1;
    }
  }
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
  const gated = await gateAndSign(written.evidence, out, signing, [], io);
  return Math.max(verdictExitCode(merged.verdict), gated);
};
