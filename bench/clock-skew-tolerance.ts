/**
 * How much clock skew each journal tolerates, measured with real processes and libfaketime:
 * `node bench/clock-skew-tolerance.ts [--cap-s 15] [--ttl-ms 2000]`.
 *
 * For each journal (SQLite file; PostgreSQL on a throw-away local cluster) and each offset of the
 * holder's clock, a `dpone run` of the example workload under libfaketime takes the lease and is
 * SIGKILLed in COMMITTING; then an ordinary `dpone run` (true clock) is tried every 250 ms until it
 * completes. The figure is how long after the holder's death the completing try started (its own
 * run time excluded), against what the journal's rule predicts (lease-clock.ts): the TTL on a
 * server's clock; on the callers' clocks the TTL plus the holder's lead, or at once when that lead
 * puts the expiry beyond the largest TTL (a clock fault). A wait beyond `--cap-s` is reported as
 * `> cap` (still refused then). Prints a table and writes bench/clock-skew.json. Without
 * libfaketime it says so and exits 3 (UNVERIFIED).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { faketimeOffsetEnv, findFaketimeLibrary } from '../harness/env/faketime.ts';
import { findLocalBinaries } from '../connectors/postgres/harness/env/local-binaries.ts';
import { LocalPostgresCluster } from '../connectors/postgres/harness/env/postgres-cluster.ts';
import { offsetMs, promisedWaitMs } from '../harness/faults/clock-skew-checks.ts';
import { Worker } from '../harness/workers/worker.ts';
import { seedEmbeddedSource } from '../examples/seed-embedded.ts';

const ROOT = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { 'cap-s': { type: 'string' }, 'ttl-ms': { type: 'string' } } });
const CAP_MS = Number(values['cap-s'] ?? 15) * 1000;
const TTL_MS = Number(values['ttl-ms'] ?? 2000);
const OFFSETS = ['-365d', '-2h', '-5s', '+0s', '+5s', '+2h', '+25h', '+365d'];
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const library = findFaketimeLibrary();
if (library === null) {
  process.stdout.write('UNVERIFIED: libfaketime is not installed (apt-get install -y faketime)\n');
  process.exit(3);
}

interface Row {
  readonly journal: string;
  readonly offset: string;
  readonly predicted_ms: number;
  /** When the completing try started after the holder died, or null when still refused at the cap. */
  readonly measured_ms: number | null;
  readonly tries: number;
}

function workload(dir: string): string {
  seedEmbeddedSource(join(dir, 'data/source.db'));
  const text = `identity:
  release_id: bench
  deployment_id: bench
  dag_id: clock
  dag_run_logical_identity: ${dir.split('/').pop()}
  workload_id: clock
  mapped_partition_identity: all
  canonical_interval: { start: '2026-07-18T00:00:00Z', end: '2026-07-19T00:00:00Z' }
  canonical_target_identity: 'sqlite:main.events'
intent:
  pack_fingerprint: 'pack:bench'
  normalized_load_strategy: append
  source_snapshot_or_partition_identity: 'orders:day=2026-07-18'
  target_contract: 'events(id,day,amount,region)'
  schema_fingerprint: 'schema:v1'
route: sqlite
source: { url: 'sqlite:data/source.db', table: orders }
target: { url: 'sqlite:data/target.db', table: events }
data: { columns: [id, day, amount, region], natural_key: [id], partition: { column: day, value: '2026-07-18' } }
execution: { lease_ttl_ms: ${TTL_MS}, state_dir: data/state }
`;
  const file = join(dir, 'workload.yaml');
  writeFileSync(file, text);
  return file;
}

async function measure(
  journalUrl: string,
  kind: 'sqlite' | 'postgres',
  offset: string,
  env: Record<string, string>,
): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-clock-bench-'));
  const file = workload(dir);
  const url = journalUrl === 'sqlite' ? `sqlite://${join(dir, 'journal.db')}` : journalUrl;
  const spec = (role: string) => ({
    role,
    workloadFile: file,
    journalUrl: url,
    cwd: dir,
    traceFile: join(dir, `${role}.trace`),
  });
  await using holder = Worker.start({
    ...spec('holder'),
    stop: { point: 'cas:PREPARED->COMMITTING:after', hit: 1 },
    env: { ...env, ...faketimeOffsetEnv(library!, offset) },
  });
  if (!(await holder.parked())) throw new Error(`the holder at ${offset} did not reach COMMITTING`);
  holder.kill();
  await holder.result();
  const died = Date.now();
  const predicted = promisedWaitMs(kind === 'postgres' ? 'server' : 'caller', TTL_MS, offsetMs(offset));
  for (let tries = 1; ; tries++) {
    const started = Date.now();
    await using retry = Worker.start({ ...spec(`retry-${tries}`), env });
    const result = await retry.result();
    if (result.exit_code === 0)
      return { journal: kind, offset, predicted_ms: predicted, measured_ms: started - died, tries };
    if (Date.now() - died > CAP_MS)
      return { journal: kind, offset, predicted_ms: predicted, measured_ms: null, tries };
    await sleep(250);
  }
}

const rows: Row[] = [];
for (const offset of OFFSETS) rows.push(await measure('sqlite', 'sqlite', offset, {}));
const binaries = findLocalBinaries();
if (binaries.postgresBin !== null) {
  await using cluster = await LocalPostgresCluster.start({ bin: binaries.postgresBin });
  for (const [index, offset] of OFFSETS.entries()) {
    await cluster.query([`CREATE DATABASE clock_${index}`]);
    rows.push(
      await measure(cluster.url(`clock_${index}`), 'postgres', offset, {
        DPONE_JOURNAL_PASSWORD: cluster.password,
      }),
    );
  }
} else {
  process.stdout.write(`postgres: UNVERIFIED (${binaries.missing[0]})\n`);
}

const cell = (ms: number | null) => (ms === null ? `> ${CAP_MS / 1000} s` : `${(ms / 1000).toFixed(1)} s`);
process.stdout.write(
  `lease TTL ${TTL_MS} ms; a normal retrier tried every 250 ms after the skewed holder died\n`,
);
process.stdout.write('journal   holder clock   predicted wait   measured (completing try started)\n');
for (const row of rows)
  process.stdout.write(
    `${row.journal.padEnd(9)} ${row.offset.padEnd(14)} ${cell(row.predicted_ms).padEnd(16)} ${cell(row.measured_ms)} (${row.tries} tries)\n`,
  );
writeFileSync(
  join(ROOT, 'bench/clock-skew.json'),
  `${JSON.stringify({ ttl_ms: TTL_MS, cap_ms: CAP_MS, rows }, null, 2)}\n`,
);
