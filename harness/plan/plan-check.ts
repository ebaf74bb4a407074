import { resolve } from 'node:path';
import { isDponeError } from '../../src/contracts/errors.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { accountedCellIds } from '../evidence/evidence-types.ts';
import { planDigest } from './plan-digest.ts';
import { unjustifiedSkips } from '../checkers/sensitivity.ts';
import { pluginRoutes } from '../routes/plugin-routes.ts';
import type { Route } from '../routes/route.ts';
import { ROUTES } from '../routes/route-registry.ts';
import { loadScenario } from '../scenario/scenario-loader.ts';
import type { LoadedScenario } from '../scenario/scenario-schema.ts';
import type { PlanRecord } from '../evidence/plan-types.ts';
import { compareCells, scenarioDigest, traceBookFrom } from './plan-record.ts';
import { planCells } from './planner.ts';
import type { TraceBook } from './trace.ts';

/** What re-planning a piece of evidence found. */
export interface PlanCheck {
  readonly ok: boolean;
  /** Cells in the plan the check derived itself (0 when it could not derive one). */
  readonly planned: number;
  readonly detail: string;
}

const EMPTY: TraceBook = { clean: [], recovery: new Map(), cleanDurationMs: 0 };

function shownIds(ids: readonly string[]): string {
  return `${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ` (+${ids.length - 3} more)` : ''}`;
}

/**
 * A built-in route, or one a connector plug-in declares (`--connector` modules, or package.json
 * `dpone.connectors` in `cwd`), or null.
 */
async function routeOf(id: string, cwd: string, connectors: readonly string[]): Promise<Route | null> {
  const builtIn = Object.hasOwn(ROUTES, id) ? ROUTES[id] : undefined;
  if (builtIn) return builtIn();
  const plugins = await pluginRoutes(cwd, connectors);
  const load = Object.hasOwn(plugins, id) ? plugins[id] : undefined;
  return load ? load() : null;
}

/** The stored plan record, when the evidence has a well-shaped one. */
export function planRecordOf(evidence: Evidence): PlanRecord | null {
  const plan = (evidence as { plan?: unknown }).plan;
  if (typeof plan !== 'object' || plan === null) return null;
  const record = plan as PlanRecord;
  return Array.isArray(record.scenarios) && typeof record.traces === 'object' && record.traces !== null
    ? record
    : null;
}

/**
 * Plans the run again, as the checker's own act: the scenario files read from disk (relative to
 * `cwd`, each required to be the content the run planned from), the evidence's seed and route,
 * this build's unsafe variants and loss modes for the route, and the traces the run recorded.
 * Returns the ids of that plan, or why none could be derived.
 */
export async function rederivePlan(
  evidence: Evidence,
  cwd: string,
  connectors: readonly string[] = [],
): Promise<{ ids: readonly string[] } | { problem: string }> {
  const plan = planRecordOf(evidence);
  if (plan === null) return { problem: 'the evidence records no plan (scenario digests and traces)' };
  const route = await routeOf(evidence.route, cwd, connectors);
  if (!route) return { problem: `this build has no route ${evidence.route}` };
  const scenarios: LoadedScenario[] = [];
  for (const source of plan.scenarios) {
    let loaded: LoadedScenario;
    try {
      loaded = await loadScenario(resolve(cwd, source.file));
    } catch (error) {
      const why = isDponeError(error) ? error.code : 'unreadable';
      return { problem: `scenario file ${source.file} cannot be read here (${why})` };
    }
    if (scenarioDigest(loaded.scenario) !== source.sha256)
      return { problem: `scenario file ${source.file} is not the one the run planned from (digest differs)` };
    scenarios.push({ ...loaded, file: source.file });
  }
  const cells = await planCells(scenarios, {
    ...(plan.seed_override !== null ? { seed: plan.seed_override } : {}),
    route: evidence.route,
    variants: route.unsafeVariants,
    ...(route.lossModes ? { lossModes: route.lossModes } : {}),
    capabilities: route.capabilities,
    traces: (key) => {
      const stored = plan.traces[key];
      return stored ? traceBookFrom(stored) : EMPTY;
    },
  });
  return { ids: cells.map((cell) => cell.id) };
}

/**
 * Whether the evidence's cells are exactly the plan derived again from its scenario files, seed and
 * traces (and the stored plan digest agrees): no cell missing, none extra.
 */
export async function checkPlan(
  evidence: Evidence,
  cwd: string,
  connectors: readonly string[] = [],
): Promise<PlanCheck> {
  const derived = await rederivePlan(evidence, cwd, connectors);
  if ('problem' in derived) return { ok: false, planned: 0, detail: derived.problem };
  const skipped = evidence.skipped_variant_cells ?? [];
  const { missing, extra } = compareCells(accountedCellIds(evidence), derived.ids);
  const problems: string[] = [...unjustifiedSkips(evidence.cells, skipped)];
  if (missing.length > 0) problems.push(`${missing.length} planned cell(s) missing: ${shownIds(missing)}`);
  if (extra.length > 0) problems.push(`${extra.length} cell(s) not in the plan: ${shownIds(extra)}`);
  const stored = planRecordOf(evidence)!;
  if (problems.length === 0 && stored.digest !== planDigest(derived.ids))
    problems.push('the stored plan digest is not the digest of the derived plan');
  if (problems.length > 0) return { ok: false, planned: derived.ids.length, detail: problems.join('; ') };
  return {
    ok: true,
    planned: derived.ids.length,
    detail: `the ${derived.ids.length} cells are exactly the plan derived again from ${stored.scenarios.length} scenario file(s), seed ${stored.seed_override ?? 'per scenario'} and the recorded traces${skipped.length > 0 ? ` (${skipped.length} variant cells not run, each variant caught by a cell present)` : ''}`,
  };
}
