import type { BulkLoadRow } from './bulk-load.ts';
import type { ReplaceRow } from './clickhouse-replace.ts';
import type { MillionCell } from './million-cell.ts';
import type { OverheadRow } from './protocol-overhead.ts';
import { round } from './stats.ts';

/**
 * Issue 37's target table, each row judged from one bench run: `met`, `missed: <what holds it
 * back, measured>` or `not measured: <why>` (never a figure this run did not measure).
 */
export interface Issue37Row {
  readonly figure: string;
  readonly target: string;
  readonly measured: string;
  readonly verdict: string;
}

export interface Issue37Inputs {
  readonly overhead: readonly OverheadRow[];
  readonly bulk: readonly BulkLoadRow[];
  readonly replace: readonly ReplaceRow[] | { readonly unmeasured: string };
  readonly million: MillionCell | { readonly unmeasured: string };
  readonly suiteWallS: number | null;
  readonly suiteCells: number | null;
  /** CPU seconds of the default suite's run, children included (null: not run or not measured). */
  readonly suiteCpuS?: number | null;
  /** Worker processes the suite's cells started. */
  readonly suiteSpawns?: number | null;
  /** CPUs of this machine: the wall target on them needs CPU seconds ≤ 45 × CPUs. */
  readonly cpus?: number;
  readonly postgresUnmeasured?: string | undefined;
  readonly clickhouseUnmeasured?: string | undefined;
}

const notMeasured = (figure: string, target: string, why: string): Issue37Row => ({
  figure,
  target,
  measured: '',
  verdict: `not measured: ${why}`,
});

const trips = (row: OverheadRow) =>
  `${row.protocol_round_trips} round trips and ${row.journal_commits} journal commits per operation against the bare write's ${row.bare_round_trips}`;

function commits(overhead: readonly OverheadRow[]): Issue37Row {
  const figure = 'journal commits / round trips per operation';
  const target = '3 / ≤ 7';
  const row = overhead.find((r) => r.database === 'sqlite' && r.rows === 1);
  if (!row) return notMeasured(figure, target, 'no SQLite protocol operation in this run');
  const measured = `${row.journal_commits} / ${row.protocol_round_trips}`;
  const met = row.journal_commits <= 3 && row.protocol_round_trips <= 7;
  const calls = Object.entries(row.protocol_calls)
    .filter(([key]) => !key.endsWith('.close'))
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');
  return {
    figure,
    target,
    measured,
    verdict: met ? 'met' : `missed: the protocol's steps as they are (${calls})`,
  };
}

function overheadRow(
  overhead: readonly OverheadRow[],
  database: string,
  rows: number,
  limit: number,
  unmeasured?: string,
): Issue37Row {
  const figure = `${rows.toLocaleString('en')} ${rows === 1 ? 'row' : 'rows'}, protocol vs bare write (${database})`;
  const target = `≤ ${limit}×`;
  const row = overhead.find((r) => r.database === database && r.rows === rows);
  if (!row) return notMeasured(figure, target, unmeasured ?? `no ${database} overhead row in this run`);
  const measured = `${row.ratio}× (${row.protocol_ms} ms vs ${row.bare_ms} ms)`;
  return { figure, target, measured, verdict: row.ratio <= limit ? 'met' : `missed: ${trips(row)}` };
}

function bulkRow(
  bulk: readonly BulkLoadRow[],
  database: string,
  limit: number,
  unmeasured?: string,
): Issue37Row {
  const figure = `1,000,000 rows vs the engine's own copy (${database})`;
  const target = `≤ ${limit}×`;
  const row = bulk.find((r) => r.database === database && r.rows === 1_000_000 && r.worker_flags === '');
  if (!row) return notMeasured(figure, target, unmeasured ?? '--quick skips the 1,000,000-row loads');
  const measured = `${row.ratio}× (${row.protocol_ms} ms vs ${row.floor_ms} ms)`;
  if (row.ratio <= limit) return { figure, target, measured, verdict: 'met' };
  if (row.bare_ms === undefined || row.bare_ratio === undefined)
    return { figure, target, measured, verdict: 'missed: no bare copy measured beside it' };
  const share = round(row.protocol_ms / row.bare_ms);
  const why =
    row.bare_ratio > limit
      ? `rows through Node: the bare copy alone (no journal, lease or fence) is ${row.bare_ratio}× the engine's copy; the protocol adds ${share}×`
      : `the protocol: ${share}× the bare copy, which is ${row.bare_ratio}× the engine's copy`;
  return { figure, target, measured, verdict: `missed: ${why}` };
}

function clickhouseBulk(bulk: readonly BulkLoadRow[], unmeasured?: string): Issue37Row {
  const figure = 'ClickHouse 100,000 rows vs clickhouse-client insert';
  const target = '≤ 2×';
  const row = bulk.find((r) => r.database === 'clickhouse' && r.rows === 100_000);
  if (!row) return notMeasured(figure, target, unmeasured ?? 'no 100,000-row ClickHouse load in this run');
  const measured = `${row.ratio}× (${row.protocol_ms} ms vs ${row.floor_ms} ms)`;
  if (row.ratio <= 2) return { figure, target, measured, verdict: 'met' };
  const one = bulk.find((r) => r.database === 'clickhouse' && r.rows === 1);
  const fixed = one
    ? `a 1-row load already takes ${one.protocol_ms} ms (the fixed cost per run: staging table, OPTIMIZE, swap, fence reads) against ${one.floor_ms} ms for the client`
    : 'the fixed cost per run (no 1-row load measured beside it)';
  return {
    figure,
    target,
    measured,
    verdict: `missed: ${fixed}; the worker used ${row.protocol_cpu_ms} ms CPU against the client's ${row.floor_cpu_ms} ms`,
  };
}

function replaceRow(replace: Issue37Inputs['replace']): Issue37Row {
  const figure = 'ClickHouse replace, 300 other partitions vs 1';
  const target = '≤ 1.2×';
  if ('unmeasured' in replace) return notMeasured(figure, target, replace.unmeasured);
  const one = replace.find((r) => r.other_partitions === 1);
  const many = replace.find((r) => r.other_partitions === 300);
  if (!one || !many) return notMeasured(figure, target, 'the replace bench ran without both sizes');
  const ratio = round(many.until_idle_ms / one.until_idle_ms);
  const measured = `${ratio}× until the server is idle (${many.until_idle_ms} ms vs ${one.until_idle_ms} ms; the operation alone ${round(many.operation_ms / one.operation_ms)}×)`;
  if (ratio <= 1.2) return { figure, target, measured, verdict: 'met' };
  return {
    figure,
    target,
    measured,
    verdict:
      many.other_parts_rewritten > 0
        ? `missed: the replace rewrote ${many.other_parts_rewritten} of the other partitions' 300 parts`
        : "missed: no other partition's part was rewritten; the fence's reads of the operation's tagged rows (3 per run, no index) still scan the whole table",
  };
}

function millionRow(million: Issue37Inputs['million']): Issue37Row[] {
  const time = { figure: 'harness, 1M-row crash cell: time', target: '≤ 40 s' };
  const rss = { figure: 'harness, 1M-row crash cell: peak RSS', target: '≤ 1 GB' };
  if ('unmeasured' in million)
    return [
      notMeasured(time.figure, time.target, million.unmeasured),
      notMeasured(rss.figure, rss.target, million.unmeasured),
    ];
  const gb = round(million.peak_rss_mb / 1024);
  return [
    {
      ...time,
      measured: `${million.crash_cell_median_s} s (median of the shard's crash cells)`,
      verdict:
        million.crash_cell_median_s <= 40
          ? 'met'
          : "missed: the cell's own work (worker load, the inspectors' one streaming pass over source and target); not broken down in this run",
    },
    {
      ...rss,
      measured: `${gb} GB (largest process of the run)`,
      verdict:
        gb <= 1
          ? 'met'
          : 'missed: the largest process (runner or worker) still holds more; not broken down in this run',
    },
  ];
}

/**
 * The default suite's CPU seconds per cell run: cells run 2 per CPU, so the suite is CPU-bound and
 * its wall time can reach 45 s only once all its work fits in 45 s of every CPU. A figure that does
 * not move with the other engineers' load on a shared machine, unlike the wall time.
 */
function suiteCpuRow(inputs: Issue37Inputs): Issue37Row {
  const figure = 'default suite CPU seconds per cell (run and children)';
  const cells = inputs.suiteCells;
  const cpus = inputs.cpus ?? 1;
  const cpuS = inputs.suiteCpuS ?? null;
  if (cpuS === null || cells === null || cells === 0)
    return notMeasured(figure, '≤ 45 s × CPUs / cells', 'the default suite was not run');
  const target = `≤ ${round((45 * cpus) / cells, 3)} s (45 s × ${cpus} CPUs / ${cells} cells)`;
  const spawns = inputs.suiteSpawns ?? null;
  const held =
    spawns === null || spawns === 0
      ? 'the workers each cell starts'
      : `${spawns} worker processes at ≤ ${round(cpuS / spawns, 3)} s each (a Node start and its ~110 modules loaded per attempt)`;
  return {
    figure,
    target,
    measured: `${round(cpuS / cells, 3)} s (${round(cpuS, 1)} s for ${cells} cells)`,
    verdict: cpuS <= 45 * cpus ? 'met' : `missed: ${held}`,
  };
}

function suiteRows(inputs: Issue37Inputs): Issue37Row[] {
  const suite =
    inputs.suiteWallS === null
      ? notMeasured('default suite wall time', '≤ 45 s', 'the default suite was not run')
      : {
          figure: 'default suite wall time',
          target: '≤ 45 s',
          measured: `${inputs.suiteWallS} s (${inputs.suiteCells} cells)`,
          verdict:
            inputs.suiteWallS <= 45
              ? 'met'
              : inputs.suiteCpuS
                ? `missed: ${round(inputs.suiteCpuS, 1)} CPU s of work on ${inputs.cpus ?? 1} CPUs; the worker processes are most of it (next row)`
                : 'missed: the worker processes each cell starts (see the CPU row)',
        };
  return [
    suite,
    suiteCpuRow(inputs),
    notMeasured(
      'CI wall time',
      '≤ 20 min',
      'CI (bash .ci/run: fresh clone, three full suites) is timed by the CI job, not by this bench',
    ),
  ];
}

export function issue37Table(inputs: Issue37Inputs): Issue37Row[] {
  return [
    commits(inputs.overhead),
    overheadRow(inputs.overhead, 'sqlite', 1, 4),
    overheadRow(inputs.overhead, 'postgres', 1, 1.8, inputs.postgresUnmeasured),
    overheadRow(inputs.overhead, 'sqlite', 10_000, 1.1),
    overheadRow(inputs.overhead, 'postgres', 10_000, 1.1, inputs.postgresUnmeasured),
    bulkRow(inputs.bulk, 'sqlite', 1.5),
    bulkRow(inputs.bulk, 'postgres', 1.3, inputs.postgresUnmeasured),
    clickhouseBulk(inputs.bulk, inputs.clickhouseUnmeasured),
    replaceRow(inputs.replace),
    ...millionRow(inputs.million),
    ...suiteRows(inputs),
  ];
}
