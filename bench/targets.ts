import type { BulkLoadRow } from './bulk-load.ts';
import type { OverheadRow } from './protocol-overhead.ts';

/** One of issue 15's targets, what this run measured for it, and, when missed, what holds it back. */
export interface TargetVerdict {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean | null;
  /** For a missed target: the measured part of the gap (rows through Node, or the protocol). */
  readonly held_back_by: string;
}

const RSS_LIMIT_MB = 200;

const find = (bulk: readonly BulkLoadRow[], database: string, rows: number) =>
  bulk.find((row) => row.database === database && row.rows === rows && row.worker_flags === '');

/**
 * The bulk-load targets at 1,000,000 rows, judged from the same run's rows. A missed one is split
 * by the bare copy measured beside it: when the bare copy alone (source connector to the target's
 * bulk path in one plain transaction, no protocol) already passes the target, moving rows through
 * a Node process is what holds it back; otherwise the protocol's share (protocol / bare) is.
 */
function bulkTarget(bulk: readonly BulkLoadRow[], database: string, limit: number): TargetVerdict {
  const target = `${database} 1,000,000 rows ≤ ${limit}× the database's own copy`;
  const row = find(bulk, database, 1_000_000);
  if (!row) return { target, measured: 'not measured in this run', met: null, held_back_by: '' };
  const measured = `${row.ratio}× (${row.protocol_ms} ms vs ${row.floor_ms} ms)`;
  if (row.ratio <= limit) return { target, measured, met: true, held_back_by: '' };
  if (row.bare_ms === undefined || row.bare_ratio === undefined)
    return { target, measured, met: false, held_back_by: 'no bare copy measured' };
  const protocolShare = Math.round((row.protocol_ms / row.bare_ms) * 100) / 100;
  const heldBy =
    row.bare_ratio > limit
      ? `rows through Node: the bare copy alone is ${row.bare_ratio}× the floor (${row.bare_ms} ms); the protocol adds ${protocolShare}× on top`
      : `the protocol: ${protocolShare}× the bare copy (${row.bare_ms} ms, ${row.bare_ratio}× the floor)`;
  return { target, measured, met: false, held_back_by: heldBy };
}

function rssTarget(bulk: readonly BulkLoadRow[], database: string): TargetVerdict {
  const rows = bulk.filter(
    (row) => row.database === database && row.rows >= 1_000_000 && row.worker_flags === '',
  );
  const target = `${database} worker peak RSS ≤ ${RSS_LIMIT_MB} MB at 1M and 5M rows (no flags)`;
  if (rows.length === 0) return { target, measured: 'not measured in this run', met: null, held_back_by: '' };
  const peak = Math.max(...rows.map((row) => row.worker_rss_mb));
  const measured = rows.map((row) => `${row.rows / 1_000_000}M: ${row.worker_rss_mb} MB`).join(', ');
  return { target, measured, met: peak <= RSS_LIMIT_MB, held_back_by: '' };
}

function overheadTarget(overhead: readonly OverheadRow[], database: string): TargetVerdict {
  const row = overhead.find((candidate) => candidate.database === database && candidate.rows === 10_000);
  const target = `${database} 10,000 rows ≤ 1.10× a bare write in one transaction`;
  if (!row) return { target, measured: 'not measured in this run', met: null, held_back_by: '' };
  const measured = `${row.ratio}× (${row.protocol_ms} ms vs ${row.bare_ms} ms)`;
  return {
    target,
    measured,
    met: row.ratio <= 1.1,
    held_back_by:
      row.ratio <= 1.1
        ? ''
        : `${row.protocol_round_trips} round trips and ${row.journal_commits} durable journal commits against ${row.bare_round_trips}`,
  };
}

/** Issue 15's targets, each judged from this run's own measurements. */
export function targetVerdicts(
  bulk: readonly BulkLoadRow[],
  overhead: readonly OverheadRow[],
): TargetVerdict[] {
  return [
    bulkTarget(bulk, 'sqlite', 2),
    bulkTarget(bulk, 'postgres', 1.5),
    rssTarget(bulk, 'sqlite'),
    rssTarget(bulk, 'postgres'),
    overheadTarget(overhead, 'sqlite'),
    overheadTarget(overhead, 'postgres'),
  ];
}
