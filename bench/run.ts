// `npm run bench`: measures what the protocol costs a pipeline and how fast the harness certifies,
// each figure as a ratio against a baseline measured in the same run, and writes
// bench/results.json with the machine's description.
import { writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { clickhouseBulkLoad } from './bulk-load-clickhouse.ts';
import { clickhouseReplace } from './clickhouse-replace.ts';
import { startupCost } from './compile-cache.ts';
import { issue37Table } from './issue37-targets.ts';
import { millionCell } from './million-cell.ts';
import { writePerformanceDocs } from './performance-doc.ts';
import { bulkLoad } from './bulk-load.ts';
import { harnessCost } from './harness-cost.ts';
import { journalThroughput } from './journal-throughput.ts';
import { protocolOverhead } from './protocol-overhead.ts';
import { withLocalPostgres } from './local-postgres.ts';
import { targetVerdicts } from './targets.ts';

const quick = process.argv.includes('--quick');
const machine = {
  node: process.version,
  platform: `${process.platform}-${process.arch}`,
  cpus: availableParallelism(),
  cpu_model: cpus()[0]?.model ?? 'unknown',
  memory_gb: Math.round(totalmem() / 2 ** 30),
  date: new Date().toISOString(),
};
console.log(
  `machine: ${machine.cpus} cpus (${machine.cpu_model}), ${machine.memory_gb} GiB, node ${machine.node}`,
);

// An entry that fails (e.g. 4 journal clients outwaiting SQLite's busy timeout on a loaded machine)
// is printed as not measured, with why, and the rest of the run goes on.
const notMeasured: string[] = [];
async function orNotMeasured<T>(what: string, fallback: T, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    notMeasured.push(`${what}: not measured: ${error instanceof Error ? error.message : String(error)}`);
    return fallback;
  }
}

const overhead = await protocolOverhead({ repeats: quick ? 3 : 7, sizes: [1, 10_000] });
// Bulk loads against each database's own copy; the 1,000,000-row size and the 5,000,000-row RSS
// entry only in the full bench (they take minutes on a small machine).
const BULK_SIZES = quick ? [1, 10_000] : [1, 10_000, 1_000_000];
const bulkRepeats = (rows: number) => (rows >= 1_000_000 ? 3 : quick ? 3 : 5);
const BIG = quick ? [] : [5_000_000];
// The 5M entry again with V8's young generation capped: a streamed load allocates short-lived
// chunks fast, and by default V8 grows the young generation (and the old space's slack) with it.
const SMALL_YOUNG = ['--max-semi-space-size=4'];
const postgres = await withLocalPostgres(async (pg) => ({
  overhead: await pg.protocolOverhead({ repeats: quick ? 3 : 7, sizes: [1, 10_000] }),
  bulk: [
    ...(await bulkLoad({
      sizes: [],
      pgSizes: [...BULK_SIZES, ...BIG],
      repeats: (rows) => (BIG.includes(rows) ? 1 : bulkRepeats(rows)),
      postgres: { url: pg.journalUrl, password: pg.password },
    })),
    ...(await bulkLoad({
      sizes: [],
      pgSizes: BIG,
      repeats: () => 1,
      postgres: { url: pg.journalUrl, password: pg.password },
      workerFlags: SMALL_YOUNG,
    })),
  ],
  throughput: await orNotMeasured('journal throughput (postgres)', [], () =>
    journalThroughput({ opsPerClient: quick ? 100 : 300, repeats: 3, postgresUrl: pg.journalUrl }),
  ),
}));
const throughput = [
  ...(await orNotMeasured('journal throughput (sqlite)', [], () =>
    journalThroughput({ opsPerClient: quick ? 100 : 300, repeats: 3 }),
  )),
  ...(postgres.value?.throughput.filter((row) => row.database === 'postgres') ?? []),
];
const sqliteBulk = [
  ...(await bulkLoad({
    sizes: [...BULK_SIZES, ...BIG],
    repeats: (rows) => (BIG.includes(rows) ? 1 : bulkRepeats(rows)),
  })),
  ...(await bulkLoad({ sizes: BIG, repeats: () => 1, workerFlags: SMALL_YOUNG })),
];
// 100,000 rows is issue 37's ClickHouse size (its 1-row load beside it is the fixed cost per run).
const clickhouse = await clickhouseBulkLoad({
  sizes: [...BULK_SIZES.filter((rows) => rows < 1_000_000), 100_000],
  repeats: bulkRepeats,
});
const replace = await clickhouseReplace({ repeats: quick ? 3 : 5 });
const bulk = [...sqliteBulk, ...(postgres.value?.bulk ?? []), ...clickhouse.rows];
const allOverhead = [...overhead, ...(postgres.value?.overhead ?? [])];
const oneOp = overhead.find((row) => row.rows === 1)?.protocol_ms ?? 0;
const startup = await startupCost(quick ? 5 : 9);
const harness = await harnessCost({ protocolMs: oneOp });
// One shard of the 1,000,000-row crash scenario (minutes, GBs): the full bench only.
const million = quick ? { unmeasured: '--quick skips the 1,000,000-row crash cell' } : await millionCell();

console.log('\nprotocol overhead (executor operation vs bare transaction, same database, same run)');
console.table(allOverhead.map(({ protocol_calls: _c, ...row }) => row));
console.log('round trips of one protocol operation:', JSON.stringify(overhead[0]?.protocol_calls));
console.log(
  "\nbulk loads (one protocol operation in its own worker vs the database's own copy: sqlite3 CLI " +
    'INSERT … SELECT, psql \\copy out | psql \\copy in, sqlite3 tabs | clickhouse-client INSERT; ' +
    "same run; RSS = the worker's peak)",
);
console.table(bulk);
const targets = targetVerdicts(bulk, allOverhead);
console.log("\nissue 15's targets (met: true/false; null = not measured in this run)");
console.table(targets);
console.log('\njournal throughput (CAS through the adapter vs raw conditional UPDATE loop)');
console.table(throughput);
console.log('\none `dpone` process start (what every certification attempt spawns), compile cache on vs off');
console.table([startup]);
console.log('\nharness cost');
console.table([{ ...harness, races: undefined }]);
console.table(harness.races);
const issue37 = issue37Table({
  overhead: allOverhead,
  bulk,
  replace: replace.unverified ? { unmeasured: replace.unverified } : replace.rows,
  million,
  suiteWallS: harness.suite_wall_s,
  suiteCells: harness.suite_cells,
  suiteCpuS: harness.suite_cpu_s,
  suiteSpawns: harness.suite_spawns,
  cpus: availableParallelism(),
  postgresUnmeasured: postgres.unverified,
  clickhouseUnmeasured: clickhouse.unverified,
});
console.log('\nClickHouse replace-partition with 1 and 300 other partitions (same server, same run)');
console.table(replace.rows);
console.log("\nissue 37's targets (verdict: met, missed: what holds it back, or not measured: why)");
console.table(issue37);
for (const line of notMeasured) console.log(line);
if (postgres.unverified) console.log(`postgres: UNVERIFIED (${postgres.unverified})`);
if (clickhouse.unverified) console.log(`clickhouse: UNVERIFIED (${clickhouse.unverified})`);

const results = {
  machine,
  overhead: allOverhead,
  bulk,
  targets,
  issue37,
  startup,
  not_measured: notMeasured,
  replace: replace.rows,
  million,
  quick,
  throughput,
  harness,
  postgres_unverified: postgres.unverified ?? null,
  clickhouse_unverified: clickhouse.unverified ?? null,
};
await writeFile(join(import.meta.dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
await writePerformanceDocs(results);
console.log("\nwritten bench/results.json, docs/performance.md and the README's performance section");
