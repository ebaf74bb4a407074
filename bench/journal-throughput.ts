import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { medianOf, round } from './stats.ts';

/**
 * Journal throughput: compare-and-set transitions per second through the SQLite adapter versus a
 * raw `UPDATE … WHERE version = ?` loop on the same kind of database (same file settings: WAL,
 * synchronous=FULL), with 1 and with 4 concurrent clients (worker threads, one connection each,
 * each on its own operation).
 */
export interface ThroughputRow {
  readonly database: string;
  readonly clients: number;
  readonly adapter_ops_per_s: number;
  readonly raw_ops_per_s: number;
  readonly ratio: number;
}

const CLIENT = new URL('./journal-throughput-client.ts', import.meta.url);

function runClient(mode: 'adapter' | 'raw', target: string, client: number, ops: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CLIENT, { workerData: { mode, target, client, ops } });
    worker.once('message', (message: { ms: number }) => resolve(message.ms));
    worker.once('error', reject);
  });
}

async function measure(
  mode: 'adapter' | 'raw',
  target: () => Promise<string>,
  clients: number,
  opsPerClient: number,
): Promise<number> {
  const location = await target();
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: clients }, (_, i) => runClient(mode, location, i, opsPerClient)));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return (clients * opsPerClient) / seconds;
}

export async function journalThroughput(options: {
  readonly opsPerClient: number;
  readonly repeats: number;
  readonly postgresUrl?: string;
}): Promise<ThroughputRow[]> {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-bench-journal-'));
  const rows: ThroughputRow[] = [];
  try {
    let n = 0;
    const freshSqlite = async () => `sqlite://${join(dir, `j${n++}.db`)}`;
    const targets: [string, () => Promise<string>][] = [['sqlite', freshSqlite]];
    if (options.postgresUrl) {
      const url = options.postgresUrl;
      targets.push(['postgres', async () => url]);
    }
    for (const [database, target] of targets) {
      for (const clients of [1, 4]) {
        // Interleave adapter and raw so drift on a shared machine hits both alike.
        const adapter = await medianOf(options.repeats, () =>
          measure('adapter', target, clients, options.opsPerClient),
        );
        const raw = await medianOf(options.repeats, () =>
          measure('raw', target, clients, options.opsPerClient),
        );
        rows.push({
          database,
          clients,
          adapter_ops_per_s: round(adapter, 0),
          raw_ops_per_s: round(raw, 0),
          ratio: round(adapter / raw),
        });
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
