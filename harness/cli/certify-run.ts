import { glob } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { invalidInput } from '../../src/contracts/errors.ts';
import { parseFlags } from '../../src/cli/args.ts';
import { PACKAGE_ROOT } from '../../src/cli/code-digest.ts';
import { SUITE_GLOBS } from '../../src/cli/shipped-suites.ts';
import { checkSigningFlags, gateAndSign, SIGNING_FLAGS } from './run-signing.ts';
import type { CliIO, CommandRun } from '../../src/cli/command.ts';
import { parseShard } from '../plan/planner.ts';
import { DEFAULT_REPORTERS, REPORTERS } from '../reporters/reporter.ts';
import type { Reporter } from '../reporters/reporter.ts';
import { resolveRouteId } from '../../src/contracts/route-id.ts';
import { CONNECTOR_PARTS } from '../routes/route-registry.ts';
import { loadScenarios } from '../scenario/scenario-loader.ts';
import { scenarioFits } from '../scenario/route-suite.ts';
import { loadRoute, runCertification } from '../run.ts';
import { reviewGate } from './gate-review.ts';
import { runEnding } from './run-ending.ts';

/** The default suite: every scenario shipped in scenarios/ (needs no server on the embedded route). */
export const DEFAULT_SCENARIOS = join(PACKAGE_ROOT, SUITE_GLOBS.default![0]!);

/**
 * Named suites (src/cli/shipped-suites.ts), as absolute globs. `default` is what `npm run certify`
 * runs; `full` adds the scenarios that need an environment of their own beyond the route's servers
 * (a real Airflow: scenarios/airflow/), the 10,000-row partitions (scenarios/large/) and the kills
 * at every statement boundary (scenarios/statements/), and is what a route is certified on: the gate requires it, and the record binds its digest.
 */
export const SUITES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(SUITE_GLOBS).map(([name, globs]) => [name, globs.map((glob) => join(PACKAGE_ROOT, glob))]),
);

/**
 * A suite for a route: every scenario of the suite that fits it (scenario/route-suite.ts): a file
 * named for a target engine (`clickhouse-*.yaml`) only on routes into that engine, and no scenario
 * whose faults the route cannot run (an embedded route has no network to cut or server to kill).
 */
export async function defaultScenarioFiles(
  route: string | undefined,
  cwd: string,
  suite = 'default',
  /** Connector plug-in modules (`--connector`), for a plug-in route. */
  connectors: readonly string[] = [],
): Promise<string[]> {
  const patterns = SUITES[suite];
  if (!patterns)
    throw invalidInput(`unknown suite "${suite}" (known: ${Object.keys(SUITES).join(', ')})`, {
      field: '--suite',
    });
  const selected = await loadRoute(route ?? 'sqlite', { cwd, connectors });
  // A plug-in route's id need not be SOURCE-to-TARGET: then no engine-named scenario is its.
  const target = resolveRouteId(selected.id)?.target ?? selected.id;
  const loaded = await loadScenarios(await scenarioFiles(patterns, cwd));
  return loaded
    .filter((scenario) => scenarioFits(scenario, selected, target, Object.keys(CONNECTOR_PARTS)))
    .map((scenario) => scenario.file);
}

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

/** Expands FILE|GLOB arguments (sorted, de-duplicated); a pattern that matches nothing is bad input. */
export async function scenarioFiles(patterns: readonly string[], cwd: string): Promise<string[]> {
  const files = new Set<string>();
  for (const pattern of patterns) {
    const matched: string[] = [];
    for await (const file of glob(pattern, { cwd })) matched.push(resolve(cwd, file));
    if (matched.length === 0)
      throw invalidInput(`--scenario ${pattern} matches no file (resolved against ${cwd})`, {
        field: '--scenario',
        // The shipped suites are named by --suite from anywhere; a relative path only from where it lies.
        ...(isAbsolute(pattern)
          ? {}
          : { hint: 'run from the folder it is relative to, or pass --suite default|full' }),
      });
    for (const file of matched) files.add(file);
  }
  return [...files].sort();
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
