import { glob } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { invalidInput } from '../../src/contracts/errors.ts';
import { PACKAGE_ROOT } from '../../src/cli/code-digest.ts';
import { resolveRouteId } from '../../src/cli/route-names.ts';
import { SUITE_GLOBS } from '../../src/cli/shipped-suites.ts';
import { DEFAULT_ROUTE } from '../plan/planner.ts';
import { loadRouteOrPlugin } from '../routes/route-loader.ts';
import { CONNECTOR_PARTS } from '../routes/route-registry.ts';
import { scenarioFits } from './route-suite.ts';
import { loadScenarios } from './scenario-loader.ts';

/** The default suite: every scenario shipped in scenarios/ (needs no server on the embedded route). */
export const DEFAULT_SCENARIOS = join(PACKAGE_ROOT, SUITE_GLOBS.default![0]!);

/**
 * Named suites (src/cli/shipped-suites.ts), as absolute globs. `default` is what `npm run certify`
 * runs; `full` adds the scenarios that need an environment of their own beyond the route's servers
 * (a real Airflow: scenarios/airflow/) and the 10,000-row partitions (scenarios/large/), and is
 * what a route is certified on: the gate requires it, and the record binds its digest.
 */
export const SUITES: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  Object.entries(SUITE_GLOBS).map(([name, globs]) => [name, globs.map((glob) => join(PACKAGE_ROOT, glob))]),
);

/**
 * A suite for a route: every scenario of the suite that fits it (scenario/route-suite.ts): a file
 * named for a target engine (`<engine>-*.yaml`) only on routes into that engine, and no scenario
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
  const selected = await loadRouteOrPlugin(route ?? DEFAULT_ROUTE, { cwd, connectors });
  // A plug-in route's id need not be SOURCE-to-TARGET: then no engine-named scenario is its.
  const target = resolveRouteId(selected.id)?.target ?? selected.id;
  const loaded = await loadScenarios(await scenarioFiles(patterns, cwd));
  return loaded
    .filter((scenario) => scenarioFits(scenario, selected, target, Object.keys(CONNECTOR_PARTS)))
    .map((scenario) => scenario.file);
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
