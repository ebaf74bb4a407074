import { relative } from 'node:path';
import { invalidInput } from '../../src/contracts/errors.ts';
import { parseFlags } from '../../src/cli/args.ts';
import { checkSigningFlags, gateAndSign, SIGNING_FLAGS } from './run-signing.ts';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { parseShard } from '../plan/planner.ts';
import { DEFAULT_REPORTERS, REPORTERS } from '../reporters/reporter-registry.ts';
import type { Reporter } from '../reporters/reporter.ts';
import { defaultScenarioFiles, scenarioFiles } from '../scenario/scenario-suites.ts';
import { runCertification } from '../run.ts';
import { reviewGate } from './gate-review.ts';
import { runEnding } from './run-ending.ts';

const FLAGS = {
  route: { type: 'string' },
  scenario: { type: 'string', multiple: true },
  suite: { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  provider: { type: 'string' },
  shard: { type: 'string' },
  concurrency: { type: 'string' },
  reporter: { type: 'string', multiple: true },
  connector: { type: 'string', multiple: true },
  'every-variant-cell': { type: 'boolean' },
  ...SIGNING_FLAGS,
} as const;

/** Workers a run may keep in flight at once: far above what a machine runs well, far below a fork bomb. */
export const MAX_CONCURRENCY = 64;

export function integerFlag(
  value: string | undefined,
  flag: string,
  min: number,
  max: number = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max)
    throw invalidInput(
      max === Number.MAX_SAFE_INTEGER
        ? `${flag} must be an integer >= ${min}`
        : `${flag} must be an integer from ${min} to ${max}`,
      { field: flag },
    );
  return Number(value);
}

export async function makeReporters(names: readonly string[], io: CliIO): Promise<Reporter[]> {
  const interactive = Boolean((io.stdout as { isTTY?: boolean }).isTTY) && !io.env.CI;
  const reporters: Reporter[] = [];
  for (const name of names) {
    const load = REPORTERS[name];
    if (!load)
      throw invalidInput(`unknown reporter "${name}" (known: ${Object.keys(REPORTERS).join(', ')})`, {
        field: '--reporter',
      });
    reporters.push((await load())({ stdout: io.stdout, env: io.env, interactive, cwd: io.cwd }));
  }
  return reporters;
}

/**
 * `dpone certify run [--route ID] [--suite default|full | --scenario FILE|GLOB…] [--seed N] [--out DIR] [--provider P]
 * [--shard I/N] [--concurrency N] [--reporter NAME]… [--connector MODULE]… [--every-variant-cell]`.
 * `--gate` gates the evidence this process produced (the acceptance items, the shipped full suite,
 * the code digests) and writes the certification record beside it: signed with `--sign --key FILE`
 * or `--sign --keyless`, else unsigned (review only). `--sign` without `--gate` signs the evidence
 * itself (a shard's, for `certify merge`). `--every-variant-cell` also runs the cells of an unsafe variant another cell already caught. A plug-in's route
 * needs its module: `--connector` or package.json `dpone.connectors`. No arguments: the default embedded suite.
 * Exit 0 all PASS, 1 any FAIL, 2 bad input (nothing ran), 3 UNVERIFIED/UNKNOWN without FAIL.
 */
export const run: CommandRun = async (args, io) => {
  const { values } = parseFlags(args, FLAGS);
  if (values.suite !== undefined && values.scenario !== undefined)
    throw invalidInput('--suite and --scenario exclude each other', { field: '--suite' });
  const seed = integerFlag(values.seed, '--seed', 0);
  const concurrency = integerFlag(values.concurrency, '--concurrency', 1, MAX_CONCURRENCY);
  // Before anything runs: a run that could not sign what it is asked to sign must not start.
  const signing = await checkSigningFlags(values, io);
  const result = await runCertification({
    scenarioFiles: values.scenario
      ? await scenarioFiles(values.scenario, io.cwd)
      : await defaultScenarioFiles(values.route, io.cwd, values.suite, values.connector ?? []),
    ...(values.scenario === undefined ? { suite: values.suite ?? 'default' } : {}),
    ...(values.route !== undefined ? { route: values.route } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(values.out !== undefined ? { out: values.out } : {}),
    ...(values.provider !== undefined ? { provider: values.provider } : {}),
    ...(values.shard !== undefined ? { shard: parseShard(values.shard) } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    reporters: await makeReporters(values.reporter ?? DEFAULT_REPORTERS, io),
    cwd: io.cwd,
    ...(values.connector !== undefined ? { connectors: values.connector } : {}),
    ...(values['every-variant-cell'] === true ? { everyVariantCell: true } : {}),
    review: (evidence) => reviewGate(evidence, io.cwd, values.connector ?? []),
  });
  const gated = await gateAndSign(
    result.evidence,
    result.dir,
    signing,
    values.connector ?? [],
    io,
    result.gate?.result ?? undefined,
  );
  // The report's folder as typed from here, or absolute when it lies outside the current folder.
  const shown = relative(io.cwd, result.dir);
  io.stdout.write(
    runEnding(result.evidence, shown && !shown.startsWith('..') ? shown : result.dir, result.gate),
  );
  return Math.max(result.exitCode === 0 ? 0 : result.exitCode, gated);
};
