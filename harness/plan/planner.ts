import { invalidInput } from '../../src/contracts/errors.ts';
import { UNSAFE_VARIANTS } from '../../src/cli/unsafe-catalogue.ts';
import { faultModule } from '../faults/fault-registry.ts';
import { EMBEDDED_ENGINE } from '../routes/route-registry.ts';
import type { PlanContext } from '../faults/fault.ts';
import type { LoadedScenario } from '../scenario/scenario-schema.ts';
import type { CellDraft, PlannedCell } from './cell.ts';
import type { TraceBook } from './trace.ts';

/** Fault kinds whose cells are planned from a recorded clean trace. */
export const TRACED_KINDS: ReadonlySet<string> = new Set([
  'crash',
  'pause',
  'airflow-retry',
  'airflow-live',
  'journal-loss',
  'fence-loss',
  // Network and server faults plan only the points the route's protocol passes.
  'network',
  'server-kill',
  'stall',
  'lost-commit',
  // Clock faults kill and park at the journal transitions of the clean trace.
  'clock-skew',
  'statement',
  // Power cuts at the journal transitions of the clean trace.
  'power-loss',
  // Full disks and journal damage at the journal transitions of the clean trace.
  'full-disk',
  'journal-corruption',
  'read-only-disk',
]);

export const DEFAULT_SEED = 42;
/** The route of a run that names none (`npm run certify`): the embedded one, by its alias. */
export const DEFAULT_ROUTE = EMBEDDED_ENGINE;
export const DEFAULT_ROWS = 20;

export interface PlanOptions {
  /** Overrides every scenario's seed. */
  readonly seed?: number;
  /** Overrides every scenario's route. */
  readonly route?: string;
  /** The route's unsafe variants; sensitive cells are repeated once per variant. */
  readonly variants: readonly string[];
  /** The route's loss modes (Route.lossModes), the default of loss faults. */
  readonly lossModes?: PlanContext['lossModes'];
  /** The route's capabilities (Route.capabilities): what network and server faults plan from. */
  readonly capabilities?: PlanContext['capabilities'];
  /** The recorded traces of a scenario's workload (see traceKey). */
  readonly traces: (key: string) => TraceBook;
}

export interface Shard {
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

/** Scenarios with the same route and workload shape share one set of recorded traces. */
export function traceKey(route: string, scenario: LoadedScenario['scenario']): string {
  const fence = scenario.workload?.fence === 'none' ? '/fence-none' : '';
  return `${route}/${scenario.workload?.strategy ?? 'append'}/${scenario.workload?.rows ?? DEFAULT_ROWS}${fence}`;
}

export function scenarioRoute(scenario: LoadedScenario['scenario'], options: { route?: string }): string {
  return options.route ?? scenario.route ?? DEFAULT_ROUTE;
}

export function scenarioSeed(scenario: LoadedScenario['scenario'], options: { seed?: number }): number {
  return options.seed ?? scenario.seed ?? DEFAULT_SEED;
}

/**
 * The variants a cell's target is certified against: a fenceless workload (capability none) only
 * those unsafe without a fence alone (replay-unknown; a fence flaw has no fence to break there and
 * the executor's other flaws are run on the fenced cells); a fenced one all but those harmless
 * behind its fence (replay-unknown: the fence refuses the replay).
 */
export function variantsForWorkload(variants: readonly string[], fence: 'none' | undefined): string[] {
  return variants.filter((name) => {
    // A name outside the catalogue (a test's, a connector's own), or one no capability offers
    // (a connector lists it itself: a server engine's own), is a fenced target's flaw.
    if (!Object.hasOwn(UNSAFE_VARIANTS, name)) return fence !== 'none';
    const unsafeOn = UNSAFE_VARIANTS[name]!.unsafeOn;
    if (unsafeOn.length === 0) return fence !== 'none';
    const fenced = unsafeOn.some((capability) => capability !== 'none');
    return fence === 'none' ? unsafeOn.includes('none') && !fenced : fenced;
  });
}

/** Whether a variant breaks the target (a connector's own, or one of the catalogue with target flaws). */
function breaksTarget(name: string): boolean {
  if (!Object.hasOwn(UNSAFE_VARIANTS, name)) return true;
  return Object.keys(UNSAFE_VARIANTS[name]!.flaws).length > 0;
}

/**
 * Whether a variant is run against a sensitive cell of this kind: the variant may name the kinds
 * it is shown by (UnsafeVariant.kinds), and the cell the variants it shows (CellDraft.sensitiveTo).
 */
export function variantRunsOn(variant: string, kind: string, draft: Pick<CellDraft, 'sensitiveTo'>): boolean {
  const kinds = Object.hasOwn(UNSAFE_VARIANTS, variant) ? UNSAFE_VARIANTS[variant]!.kinds : undefined;
  if (kinds !== undefined && !kinds.includes(kind)) return false;
  return draft.sensitiveTo === undefined || draft.sensitiveTo.includes(variant);
}

/**
 * Expands scenarios into cells: each fault module plans its cells from the recorded traces, the
 * scenario name prefixes their ids, sensitive cells are repeated per unsafe variant (`id@variant`),
 * and the result is sorted by id so the order (and any shard) is the same on every machine.
 */
export async function planCells(
  scenarios: readonly LoadedScenario[],
  options: PlanOptions,
): Promise<PlannedCell[]> {
  const cells: PlannedCell[] = [];
  for (const { file, scenario } of scenarios) {
    const route = scenarioRoute(scenario, options);
    const seed = scenarioSeed(scenario, options);
    const traces = options.traces(traceKey(route, scenario));
    // A reference run that failed plans nothing: its scenario's traced faults become one
    // reference cell (which FAILs, with what the run did), unless the scenario names one itself.
    const failed = traces.referenceFailure !== undefined;
    const faults = failed
      ? [
          ...(scenario.faults.some((f) => f.kind === 'reference') ? [] : [{ kind: 'reference' as const }]),
          ...scenario.faults.filter((f) => !TRACED_KINDS.has(f.kind)),
        ]
      : scenario.faults;
    for (const spec of faults) {
      const module = await faultModule(spec.kind);
      const workload = {
        rows: scenario.workload?.rows ?? DEFAULT_ROWS,
        strategy: scenario.workload?.strategy ?? 'append',
        leaseTtlMs: module.leaseTtlMs(spec),
        seed,
        ...(scenario.workload?.fence === 'none' ? { fence: 'none' as const } : {}),
        ...(scenario.workload?.pooler ? { pooler: scenario.workload.pooler } : {}),
      };
      const context: PlanContext = {
        seed,
        traces,
        ...(options.lossModes ? { lossModes: options.lossModes } : {}),
        ...(options.capabilities ? { capabilities: options.capabilities } : {}),
        ...(workload.fence ? { fence: workload.fence } : {}),
      };
      for (const draft of module.plan(spec, context)) {
        const base = {
          id: `${scenario.name}/${draft.localId}`,
          scenario: scenario.name,
          scenarioFile: file,
          route,
          kind: spec.kind,
          spec,
          variant: null,
          // The PgBouncer lane's cells say so in their fault record (the gate counts them by mode).
          fault: workload.pooler ? { ...draft.fault, pooler: workload.pooler } : draft.fault,
          params: draft.params,
          workload,
          checks: scenario.checks ?? null,
          seed,
        } satisfies PlannedCell;
        cells.push(base);
        if (draft.sensitive && scenario.variants !== false) {
          const offered = variantsForWorkload(options.variants, workload.fence);
          for (const variant of draft.targetVariantsOnly ? offered.filter(breaksTarget) : offered) {
            if (!variantRunsOn(variant, spec.kind, draft)) continue;
            // A variant only some cells can reach runs only where a draft names it (cost: none elsewhere).
            if (UNSAFE_VARIANTS[variant]?.onlyWhereNamed && !draft.variants?.includes(variant)) continue;
            cells.push({ ...base, id: `${base.id}@${variant}`, variant, fault: { ...base.fault, variant } });
          }
        }
      }
    }
  }
  cells.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const ids = new Set<string>();
  for (const cell of cells) {
    if (ids.has(cell.id))
      throw invalidInput(`two cells have the id ${cell.id}`, { field: cell.scenarioFile });
    ids.add(cell.id);
  }
  return cells;
}

/** Parses `I/N` (1 <= I <= N). */
export function parseShard(text: string): Shard {
  const match = /^([1-9][0-9]{0,3})\/([1-9][0-9]{0,3})$/.exec(text);
  const shard = match ? { index: Number(match[1]), count: Number(match[2]) } : null;
  if (!shard || shard.index > shard.count)
    throw invalidInput('--shard must be I/N with 1 <= I <= N <= 9999', { field: '--shard' });
  return shard;
}

/** The cells of shard I of N: index % N == I - 1 in the sorted order. The shards are a disjoint cover. */
export function selectShard<T>(cells: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...cells];
  return cells.filter((_, index) => index % shard.count === shard.index - 1);
}
