import { parseStatementPoint } from '../../src/ports/statement-points.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import { atomicVisibility, targetImages } from './atomic-visibility.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS, unverifiedOutcome } from './fault.ts';
import { installToxic } from './toxiproxy-switch.ts';

type Mode = 'kill' | 'cut';
const STEPS = ['prepare', 'mutate', 'query'] as const;

interface StatementParams {
  readonly at: TraceOccurrence;
  readonly mode: Mode;
}

/** The cell planned when the reference run passed no statement point at all. */
const NONE = 'no-statement-points';

/** One statement boundary of the clean run: where a cell parks, and the points equal to it. */
export interface StatementBoundary {
  readonly at: TraceOccurrence;
  readonly step: string;
  /** Points of the same boundary: an `after` and the next `before` with nothing in between. */
  readonly equivalent: readonly TraceOccurrence[];
}

/**
 * The statement boundaries of a clean run with its statement points, in order. A statement's
 * `after` and the next statement's `before` are one boundary when the trace passes nothing between
 * them: no statement went out and no journal write happened (every journal write passes a named
 * point), so a kill at either leaves the same durable state.
 */
export function statementBoundaries(
  trace: readonly TraceOccurrence[],
  steps: readonly string[] = STEPS,
): StatementBoundary[] {
  const boundaries: { at: TraceOccurrence; step: string; equivalent: TraceOccurrence[] }[] = [];
  let afterJustPassed = false;
  for (const occurrence of trace) {
    const parsed = parseStatementPoint(occurrence.point);
    if (!parsed || !steps.includes(parsed.step)) {
      afterJustPassed = false;
      continue;
    }
    const last = boundaries.at(-1);
    if (parsed.side === 'before' && afterJustPassed && last && last.step === parsed.step)
      last.equivalent.push(occurrence);
    else boundaries.push({ at: occurrence, step: parsed.step, equivalent: [] });
    afterJustPassed = parsed.side === 'after';
  }
  return boundaries;
}

function modesFor(spec: FaultSpecOf<'statement'>, context: PlanContext): Mode[] {
  if (spec.modes) return [...spec.modes];
  const proxied = context.capabilities?.proxies.includes('target') === true;
  return proxied ? ['kill', 'cut'] : ['kill'];
}

/**
 * One cell per (mode, boundary). Killed inside the mutation step, a target whose statements do not
 * hold the protocol's atomicity shows a second mutation: those kills are the sensitivity subset,
 * run per variant that breaks the target (the executor's own flaws are not a statement's; cuts
 * are run on the certified target only, to keep the cost down).
 */
function planStatements(spec: FaultSpecOf<'statement'>, context: PlanContext): CellDraft[] {
  const trace = context.traces.statements ?? [];
  const boundaries = statementBoundaries(trace, spec.steps ?? STEPS);
  // A target that wraps nothing it sends has no boundary to aim at: one cell says so (UNVERIFIED),
  // rather than a scenario of zero cells that nobody sees.
  if (boundaries.length === 0)
    return [{ localId: NONE, fault: { kind: 'statement', attempt: 1 }, params: {}, sensitive: false }];
  return modesFor(spec, context).flatMap((mode) =>
    boundaries.map(({ at, step, equivalent }) => ({
      localId: `${mode}/${occurrenceKey(at)}`,
      fault: {
        kind: 'statement',
        mode,
        point: at.point,
        hit: at.hit,
        attempt: 1,
        step,
        ...(mode === 'cut' ? { toxic: 'reset_peer', proxy: 'target' } : {}),
        ...(equivalent.length > 0 ? { equivalent_points: equivalent.map(occurrenceKey) } : {}),
      },
      params: { at, mode } satisfies StatementParams,
      sensitive: mode === 'kill' && step === 'mutate',
      targetVariantsOnly: true,
    })),
  );
}

/** Parks the worker at the boundary, resets the target's connection there, lets it run on. */
async function cutAt(
  run: CellRun,
  at: TraceOccurrence,
): Promise<{ record: AttemptRecord; hit: boolean } | string> {
  const network = run.fixture.network;
  const name = network?.proxies.target;
  if (!network || !name)
    return `route ${run.cell.route} has no proxy on its target connection (it is embedded): a cut cannot run`;
  await using worker = run.start('first', { stop: at });
  if (!(await worker.parked())) return { record: await worker.result(), hit: false };
  const cut = await installToxic(network.apiUrl, name, 'reset_peer');
  try {
    worker.resume();
    return { record: await worker.result(), hit: true };
  } finally {
    await cut[Symbol.asyncDispose]();
  }
}

async function runStatement(run: CellRun): Promise<CellOutcome> {
  const { at, mode } = run.cell.params as unknown as Partial<StatementParams>;
  if (at === undefined || mode === undefined)
    return unverifiedOutcome(
      `the target connector of route ${run.cell.route} passed no statement point in its reference run: it does not wrap what it sends (src/ports/statement-points.ts)`,
    );
  const { inspector } = run.fixture;
  const images = await targetImages(inspector);
  const first = mode === 'cut' ? await cutAt(run, at) : await run.killAt('first', at);
  if (typeof first === 'string') return unverifiedOutcome(first);
  const checks: CheckRecord[] = [];
  if (first.hit) {
    const what = mode === 'cut' ? 'the connection cut' : 'the kill';
    checks.push(await atomicVisibility(inspector, images, `after ${what} at ${occurrenceKey(at)}`));
  }
  return {
    attempts: [first.record],
    hit: first.hit,
    extraChecks: checks,
    ...(mode === 'cut' ? { expectation: { end: 'complete' as const } } : {}),
  };
}

/**
 * statement: a SIGKILL (and, where the target's connection goes through a proxy, a reset of that
 * connection) at every statement boundary of the clean run's guarded steps, found by the statement
 * points the target connector passes around everything it sends (ports/statement-points.ts), for
 * built-in and plug-in connectors alike. The runner's settle worker recovers each cell: exactly one
 * mutation, and readers see the old rows or the whole load after the fault.
 */
export const statementFault: FaultModule<'statement'> = {
  kind: 'statement',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planStatements,
  run: runStatement,
};
