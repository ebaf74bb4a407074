import { copyFileSync, mkdtempSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FENCE_TABLE } from 'dpone-cert';
import type { CellTable } from 'dpone-cert/testing';
import { withSession } from './duckdb-database.ts';
import { FENCE_DDL } from './duckdb-dialect.ts';
import { duckdbHarness } from './duckdb-harness.ts';

/** The harness parts that make the route's kill cells cheap: the state files and their dump. */

const TABLE: CellTable = {
  name: 'events',
  columns: [
    { name: 'id', type: 'integer' },
    { name: 'label', type: 'text' },
  ],
  naturalKey: ['id'],
  partition: { column: 'label', value: 'a' },
};

/**
 * A prepared cell whose target got `batches` inserts (one transaction each) and a fence row at
 * `status` (its instant fixed: the harness masks instants before it compares dumps).
 */
async function cell(batches: readonly (readonly number[])[], status: string | null) {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-duckdb-harness-'));
  const target = await duckdbHarness.target.prepare(dir, TABLE);
  await target.installAudit();
  const path = join(dir, 'target.duckdb');
  for (const ids of batches)
    await withSession(path, false, async (session) => {
      for (const id of ids) await session.run(`INSERT INTO events (id, label) VALUES (${id}, 'a')`);
    });
  if (status !== null)
    await withSession(path, false, async (session) => {
      await session.run(FENCE_DDL);
      await session.run(
        `INSERT INTO ${FENCE_TABLE} (operation_id, epoch, status, updated_at_ms) VALUES ('op', 3, '${status}', 1764547200000)`,
      );
    });
  return { dir, target, dump: () => duckdbHarness.target.dumpState!(dir, TABLE) };
}

describe('the DuckDB harness parts for restored kills', () => {
  it('names the target by absolute path, so a worker running elsewhere opens this very file', async () => {
    const { target } = await cell([], null);
    const file = /^duckdb:(.+)$/.exec(target.endpoint.url)![1]!;
    expect(isAbsolute(file)).toBe(true);
  });

  it('dumps rows and fence, not the audit markers: equal states are equal, a fence status differs', async () => {
    const oneTransaction = await (await cell([[1, 2]], 'PREPARED')).dump();
    const twoTransactions = await (await cell([[1], [2]], 'PREPARED')).dump();
    expect(twoTransactions).toBe(oneTransaction);
    expect(oneTransaction).toContain(FENCE_TABLE);
    expect(oneTransaction).not.toMatch(/_audit_/);
    expect(await (await cell([[1, 2]], 'COMMITTED')).dump()).not.toBe(oneTransaction);
    expect(await (await cell([[1, 2]], null)).dump()).not.toBe(oneTransaction);
    expect(await (await cell([[1]], 'PREPARED')).dump()).not.toBe(oneTransaction);
  });

  it('its state files carry the whole target: a copy in another cell reads the same rows and fence', async () => {
    const from = await cell([[1], [2]], 'COMMITTED');
    const to = await cell([], null);
    for (const name of duckdbHarness.target.stateFiles!)
      try {
        copyFileSync(join(from.dir, name), join(to.dir, name));
      } catch {
        // a WAL exists only while a write is not checkpointed
      }
    expect(await to.dump()).toBe(await from.dump());
    expect((await to.target.read()).rows).toEqual((await from.target.read()).rows);
    expect((await to.target.fence!.read('op')).locations[0]).toMatchObject({ status: 'COMMITTED', epoch: 3 });
  });
  it('reads the committed rows and fence while a stopped writer holds the file inside its transaction', async () => {
    const { dir, target } = await cell([[1, 2]], 'PREPARED');
    const path = join(dir, 'target.duckdb');
    // A worker paused inside its transaction: it holds DuckDB's file lock for as long as it lives.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(${JSON.stringify(path)});
const c = await db.connect();
await c.run('BEGIN');
await c.run("INSERT INTO events (id, label) VALUES (3, 'a')");
await c.run("UPDATE ${FENCE_TABLE} SET status = 'COMMITTED'");
process.stdout.write('held\\n');
setInterval(() => {}, 1000);`,
      ],
      { cwd: import.meta.dirname, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout.on('data', () => resolve());
        holder.on('exit', (code) => reject(new Error(`the holder exited (${code})`)));
      });
      const started = Date.now();
      expect((await target.read()).rows.map((row) => Number(row.id))).toEqual([1, 2]);
      expect((await target.fence!.read('op')).locations[0]).toMatchObject({ status: 'PREPARED', epoch: 3 });
      // Not the writers' 20 s lock wait: the read gives up on the lock and reads a copy.
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      holder.kill('SIGKILL');
    }
  }, 30_000);
});
