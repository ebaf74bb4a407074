import type { AttemptRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { RecordedKill, TraceBook, TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { CellOutcome, CellRun } from './fault.ts';
import { unverifiedOutcome } from './fault.ts';

/** The scenario's modes (de-duplicated, in its order), else every mode the route supports. */
export function selectedModes<M extends string>(
  requested: readonly M[] | undefined,
  routeModes: readonly M[] | undefined,
  order: readonly M[],
): M[] {
  if (requested) return [...new Set(requested)];
  return order.filter((mode) => (routeModes ?? []).includes(mode));
}

/** One loss cell at `at` (the first of its group of durably equivalent points). */
export function lossCellDraft(
  kind: 'journal-loss' | 'fence-loss',
  mode: string,
  at: TraceOccurrence,
  equivalent: readonly TraceOccurrence[],
  traces: TraceBook,
  options: {
    readonly backup?: TraceOccurrence;
    readonly extraFault?: Readonly<Record<string, unknown>>;
    readonly sensitive?: boolean;
  } = {},
): CellDraft {
  const key = occurrenceKey(at);
  return {
    localId: `${mode}/${key}`,
    fault: {
      kind,
      mode,
      point: at.point,
      hit: at.hit,
      attempt: 1,
      ...(equivalent.length > 0 ? { equivalent_points: equivalent.map(occurrenceKey) } : {}),
      ...options.extraFault,
    },
    params: {
      mode,
      at,
      ...(options.backup ? { backup: options.backup } : {}),
      ...(traces.snapshots?.get(key) ? { killed: traces.snapshots.get(key) } : {}),
    },
    sensitive: options.sensitive ?? false,
  };
}

/**
 * The first attempt, SIGKILLed at `at`. A real (non-variant) cell starts from the recorded kill's
 * state when the route can copy it (that attempt ran and was killed at the same point during trace
 * recording); a variant cell runs it, since an unsafe target may take another path.
 */
export async function lostBeforeRetry(
  run: CellRun,
  at: TraceOccurrence,
  killed: RecordedKill | undefined,
): Promise<{ record: AttemptRecord; hit: boolean }> {
  if (run.cell.variant === null && killed !== undefined && (await run.restore(killed.dir)))
    return { record: { ...killed.first, role: 'first-recorded' }, hit: true };
  return run.killAt('first', at);
}

/**
 * A cell whose route lacks an operation its mode needs: nothing runs, and the cell is UNVERIFIED
 * with the reason (never PASS). Null when the route has every operation.
 */
export function missingOperation(
  run: CellRun,
  family: 'journalOps' | 'fenceOps',
  needs: readonly string[],
  mode: string,
): CellOutcome | null {
  const ops = run.fixture[family] as Readonly<Record<string, unknown>> | undefined;
  const lacking = needs.filter((name) => typeof ops?.[name] !== 'function');
  if (lacking.length === 0) return null;
  return unverifiedOutcome(
    `route ${run.cell.route} cannot ${lacking.join(', ')} (needed for ${run.cell.kind} ${mode}): the cell could not run`,
  );
}
