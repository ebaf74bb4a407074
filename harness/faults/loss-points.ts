import { faultPoint, isCasPoint } from '../../src/contracts/fault-point-names.ts';
import type { TraceBook, TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';

/**
 * The transition points of a recorded clean trace, where the loss faults strike: both sides of
 * every journal compare-and-set (`cas:A->B:before|after`), the intent's creation
 * (`journal.create:after`, the first transition, into PREPARING), and every point of the target's
 * commit (`target.commit:before|sent|after`: the window where the target holds the mutation and the
 * journal does not know yet). The gate's "every transition" is this set.
 */
export function isLossTransitionPoint(point: string): boolean {
  return (
    isCasPoint(point) || point.startsWith('target.commit:') || point === faultPoint('journal.create:after')
  );
}

export function transitionPoints(trace: readonly TraceOccurrence[]): TraceOccurrence[] {
  return trace.filter((occurrence) => isLossTransitionPoint(occurrence.point));
}

/** Points after which the journal holds a state it did not hold before (a durable journal write). */
function writesJournal(point: string): boolean {
  return (
    point === 'journal.create:after' ||
    point === 'lease.acquire:after' ||
    (point.startsWith('cas:') && point.endsWith(':after'))
  );
}

/** Where a backup may be taken: the journal before this operation, or right after a transition. */
function isBackupPoint(point: string): boolean {
  return point === 'journal.read:before' || (writesJournal(point) && point !== 'lease.acquire:after');
}

/**
 * The earlier transition a rolled-back journal is restored to, for a loss at `at`: the latest
 * backup point before `at` after which the journal was written again before `at` — the journal
 * one durable step older than it is at `at` (e.g. PREPARED for a loss while COMMITTING, right
 * after the target committed). Null when `at` is not in the trace.
 */
export function backupPointFor(
  trace: readonly TraceOccurrence[],
  at: TraceOccurrence,
): TraceOccurrence | null {
  const index = trace.findIndex((o) => occurrenceKey(o) === occurrenceKey(at));
  if (index < 0) return null;
  let written = writesJournal(at.point);
  for (let i = index - 1; i >= 0; i--) {
    const candidate = trace[i]!;
    if (written && isBackupPoint(candidate.point)) return candidate;
    if (writesJournal(candidate.point)) written = true;
  }
  return null;
}

/**
 * Loss points grouped by the durable state a kill there leaves (trace order kept; the first of a
 * group represents it), from the recorded kills' fingerprints; `extraKey` splits groups further
 * (e.g. by backup point). Without fingerprints, or when asked for every point, one point a group.
 */
export function groupByDurableState(
  points: readonly TraceOccurrence[],
  traces: TraceBook,
  distinct: boolean,
  extraKey: (at: TraceOccurrence) => string = () => '',
): TraceOccurrence[][] {
  const groups = new Map<string, TraceOccurrence[]>();
  for (const at of points) {
    const fingerprint = traces.snapshots?.get(occurrenceKey(at))?.fingerprint;
    const key = distinct && fingerprint ? `${fingerprint}|${extraKey(at)}` : `point:${occurrenceKey(at)}`;
    groups.set(key, [...(groups.get(key) ?? []), at]);
  }
  return [...groups.values()];
}
