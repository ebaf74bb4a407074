import type { AttemptRecord } from '../evidence/evidence-types.ts';
import type { ReferenceFailure } from '../evidence/plan-types.ts';
import type { MutationWindow } from './mutation-window.ts';
import { readFile } from 'node:fs/promises';
import { isStatementPoint } from '../../src/ports/statement-points.ts';

/** One pass of a fault point: its name and which pass it was (1-based). */
export interface TraceOccurrence {
  readonly point: string;
  readonly hit: number;
}

/** `point#hit`, the form cell ids and scenario files use. */
export function occurrenceKey(occurrence: TraceOccurrence): string {
  return `${occurrence.point}#${occurrence.hit}`;
}

/** Parses `point` or `point#hit` (default hit 1). */
export function parseOccurrence(text: string): TraceOccurrence {
  const match = /^(.*)#([1-9][0-9]*)$/.exec(text);
  return match ? { point: match[1]!, hit: Number(match[2]) } : { point: text, hit: 1 };
}

/** Numbers the passes of each point in a trace (one point per line, in order). */
export function occurrencesOf(lines: readonly string[]): TraceOccurrence[] {
  const hits = new Map<string, number>();
  return lines
    .filter((line) => line.length > 0)
    .map((point) => {
      const hit = (hits.get(point) ?? 0) + 1;
      hits.set(point, hit);
      return { point, hit };
    });
}

/** The trace without its statement points (their hits are counted apart, so the rest keep theirs). */
export function namedPoints(trace: readonly TraceOccurrence[]): TraceOccurrence[] {
  return trace.filter((occurrence) => !isStatementPoint(occurrence.point));
}

export async function readTrace(file: string): Promise<TraceOccurrence[]> {
  try {
    return occurrencesOf((await readFile(file, 'utf8')).split('\n'));
  } catch {
    return [];
  }
}

/**
 * The recorded traces a plan is enumerated from: the clean first attempt, and for each of its
 * occurrences, the recovery attempt that follows a SIGKILL there (for depth 2).
 */
export interface TraceBook {
  /** The clean run's named fault points, in order (statement points left out). */
  readonly clean: readonly TraceOccurrence[];
  /**
   * The same clean run with its statement points (`stmt:<step>.<n>:before|after`) in place, in
   * order: what statement cells are planned from. Absent when the run did not record them.
   */
  readonly statements?: readonly TraceOccurrence[];
  /** Keyed by occurrenceKey of the first-attempt kill. */
  readonly recovery: ReadonlyMap<string, readonly TraceOccurrence[]>;
  /**
   * Present when the reference run did not end cleanly: its traces are empty, and each scenario of
   * the workload is planned as its reference cell alone (reference-fault.ts), which FAILs.
   */
  readonly referenceFailure?: ReferenceFailure;
  /** Wall time of the clean run, for sizing random kill delays (informational). */
  readonly cleanDurationMs: number;
  /**
   * How long the clean run's target spent writing the rows (mutation-window.ts), as the worker
   * timed itself: what `random_window: mutation` aims its kills with. Absent when not measured.
   */
  readonly mutationWindow?: MutationWindow;
  /**
   * Durable state right after each recorded first-attempt kill (folder + that attempt's record),
   * keyed like `recovery`; present when the route can copy cell state.
   */
  readonly snapshots?: ReadonlyMap<string, RecordedKill>;
}

/** A recorded first-attempt kill whose durable state was kept for depth-2 cells. */
export interface RecordedKill {
  /** The copied state's folder; '' when the route cannot copy state (only its fingerprint was read). */
  readonly dir: string;
  readonly first: AttemptRecord;
  /** Route's durable-state digest right after the kill, when the route computes one. */
  readonly fingerprint?: string;
}
