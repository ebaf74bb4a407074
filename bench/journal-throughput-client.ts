import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { openJournal } from '../src/cli/journal-url.ts';
import type { CommitState } from '../src/contracts/states.ts';

/**
 * One benchmark client (a worker thread): `ops` compare-and-set transitions on its own operation,
 * alternating PREPARED <-> COMMITTING (a legal cycle), either through the journal adapter or as a
 * raw conditional UPDATE on the adapter's own table.
 */
const { mode, target, client, ops } = workerData as {
  mode: 'adapter' | 'raw';
  target: string;
  client: number;
  ops: number;
};

const journal = await openJournal(target, { cwd: process.cwd(), env: process.env });
const operationId = `sha256:${randomUUID().replace(/-/g, '').padEnd(64, String(client))}`;
let entry = (
  await journal.createIntent({
    operationId,
    intentDigest: 'sha256:' + '0'.repeat(64),
    metadata: { workload_id: 'bench', target_identity: 'bench:target' },
    nowMs: Date.now(),
  })
).entry;
entry = await journal.compareAndSet({
  operationId,
  expectedVersion: entry.version,
  expectedStates: new Set<CommitState>(['PREPARING']),
  nextState: 'PREPARED',
  evidence: { reason: 'bench' },
  nowMs: Date.now(),
});

let elapsed: number;
if (mode === 'adapter') {
  const started = performance.now();
  for (let i = 0; i < ops; i++) {
    const next: CommitState = entry.state === 'PREPARED' ? 'COMMITTING' : 'PREPARED';
    entry = await journal.compareAndSet({
      operationId,
      expectedVersion: entry.version,
      expectedStates: new Set<CommitState>([entry.state]),
      nextState: next,
      evidence: { reason: 'bench' },
      nowMs: Date.now(),
    });
  }
  elapsed = performance.now() - started;
  await journal.close();
} else {
  await journal.close();
  elapsed = await rawLoop(target, operationId, entry.version, ops);
}
parentPort!.postMessage({ ms: elapsed });

/** The baseline: the same conditional UPDATE, one statement per transition, no history row. */
async function rawLoop(url: string, id: string, version: number, count: number): Promise<number> {
  if (url.startsWith('sqlite:')) {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(url.replace(/^sqlite:\/\//, ''));
    db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL');
    const update = db.prepare(
      'UPDATE dpone_commit_journal SET state = ?, version = ? WHERE operation_id = ? AND version = ?',
    );
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const changed = update.run(i % 2 === 0 ? 'COMMITTING' : 'PREPARED', version + 1, id, version);
      if (Number(changed.changes) !== 1) throw new Error('raw CAS lost');
      version++;
    }
    const ms = performance.now() - started;
    db.close();
    return ms;
  }
  const pg = (await import('pg')).default;
  const { clientConfig } = await import('./postgres-overhead.ts');
  const client = new pg.Client(clientConfig(url, process.env.DPONE_BENCH_PG_PASSWORD));
  await client.connect();
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const changed = await client.query(
      'UPDATE dpone_commit_journal SET state = $1, version = $2 WHERE operation_id = $3 AND version = $4',
      [i % 2 === 0 ? 'COMMITTING' : 'PREPARED', version + 1, id, version],
    );
    if (changed.rowCount !== 1) throw new Error('raw CAS lost');
    version++;
  }
  const ms = performance.now() - started;
  await client.end();
  return ms;
}
