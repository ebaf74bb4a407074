import type { CellEvidence } from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';
import { COMMIT_STATES, TRANSITIONS } from '../../src/contracts/states.ts';
import type { CommitState } from '../../src/contracts/states.ts';

/**
 * Where a cell's fault sits on the protocol's state diagram: on the edge `A->B` of the transition
 * table for a journal compare-and-set point (`cas:A->B:before|after`), else in the state the
 * journal held when the faulted attempt reached its point (read from the cell's own journal).
 */
export type Place =
  | { readonly kind: 'edge'; readonly from: CommitState; readonly to: CommitState }
  | {
      readonly kind: 'state';
      readonly state: CommitState;
    };

export function placeKey(place: Place): string {
  return place.kind === 'edge' ? `edge:${place.from}->${place.to}` : `state:${place.state}`;
}

const isState = (value: string | null | undefined): value is CommitState =>
  typeof value === 'string' && (COMMIT_STATES as readonly string[]).includes(value);

/** The place of a cell's fault, or null (no fault point, or its journal cannot say where). */
export function cellPlace(cell: CellEvidence): Place | null {
  const point = cell.fault.point;
  if (typeof point !== 'string' || !point) return null;
  const cas = /^cas:([A-Z_]+)->([A-Z_]+):(?:before|after)$/.exec(point);
  if (cas && isState(cas[1]) && isState(cas[2]) && TRANSITIONS[cas[1]].includes(cas[2]))
    return { kind: 'edge', from: cas[1], to: cas[2] };
  const state = stateAtFault(cell);
  return state ? { kind: 'state', state } : null;
}

/**
 * The journal's state when the faulted attempt stopped: the last record written before the
 * attempt ended (when the evidence has its start time), else the last record before a later
 * lease epoch took over (the state the faulted holder left behind).
 */
function stateAtFault(cell: CellEvidence): CommitState | null {
  const history = cell.journal?.history ?? [];
  if (history.length === 0) return null;
  const index = typeof cell.fault.attempt === 'number' ? cell.fault.attempt - 1 : 0;
  const attempt = cell.attempts[index] ?? cell.attempts[0];
  if (attempt && typeof attempt.started_at_ms === 'number') {
    const end = attempt.started_at_ms + attempt.duration_ms;
    const before = history.filter((record) => record.at_ms <= end).at(-1);
    return before && isState(before.to_state) ? before.to_state : null;
  }
  const first = history.find((record) => record.lease_epoch !== null)?.lease_epoch ?? null;
  const takeover = history.findIndex(
    (record) => first !== null && record.lease_epoch !== null && record.lease_epoch > first,
  );
  const left = takeover > 0 ? history[takeover - 1] : takeover === -1 ? history.at(-1) : undefined;
  return left && isState(left.to_state) ? left.to_state : null;
}

export interface PlaceTally {
  readonly key: string;
  readonly place: Place;
  readonly points: readonly string[];
  readonly counts: Readonly<Record<Verdict, number>>;
  /** The worst verdict of the cells there (FAIL > UNKNOWN > UNVERIFIED > PASS). */
  readonly worst: Verdict;
  readonly cells: number;
}

const WORST: readonly Verdict[] = ['FAIL', 'UNKNOWN', 'UNVERIFIED', 'PASS'];

/** The cells grouped by place, with their verdict counts; cells with no place are counted apart. */
export function tallyPlaces(cells: readonly CellEvidence[]): { places: PlaceTally[]; unplaced: number } {
  const groups = new Map<string, { place: Place; points: Set<string>; verdicts: Verdict[] }>();
  let unplaced = 0;
  for (const cell of cells) {
    const place = cellPlace(cell);
    if (!place) {
      unplaced++;
      continue;
    }
    const key = placeKey(place);
    const group = groups.get(key) ?? { place, points: new Set<string>(), verdicts: [] };
    group.points.add(String(cell.fault.point));
    group.verdicts.push(cell.verdict);
    groups.set(key, group);
  }
  const places = [...groups.entries()].map(([key, group]) => {
    const counts = { PASS: 0, FAIL: 0, UNKNOWN: 0, UNVERIFIED: 0 };
    for (const verdict of group.verdicts) counts[verdict]++;
    return {
      key,
      place: group.place,
      points: [...group.points].sort(),
      counts,
      worst: WORST.find((verdict) => counts[verdict] > 0) ?? 'PASS',
      cells: group.verdicts.length,
    };
  });
  return { places: places.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), unplaced };
}
