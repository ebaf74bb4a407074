import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../contracts/errors.ts';
import type { MutationRequest } from '../../../ports/connector.ts';
import { SqliteSource } from './sqlite-source.ts';
import { SqliteTarget } from './sqlite-target.ts';
import { UNSAFE_SQLITE_VARIANTS, sqliteTargetForHarness } from './sqlite-unsafe-variants.ts';

const OP = 'sha256:' + 'a'.repeat(64);
const columns = ['day', 'id', 'amount'] as const;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dpone-sqlite-'));
  const db = new DatabaseSync(join(dir, 'source.db'));
  db.exec('CREATE TABLE events (day TEXT, id INTEGER, amount REAL)');
  db.exec(`INSERT INTO events VALUES ('2026-01-02', 2, 2.5), ('2026-01-02', 1, 1.5), ('2026-01-03', 3, 3.5)`);
  db.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function targetOptions() {
  return { path: join(dir, 'target.db'), table: 'events', columns, naturalKey: ['id'] };
}

async function request(
  epoch: number,
  strategy: MutationRequest['strategy'] = 'append',
): Promise<MutationRequest> {
  await using source = await SqliteSource.open(join(dir, 'source.db'), 'events', columns);
  const batch = await source.read({ partitionColumn: 'day', partitionValue: '2026-01-02' });
  return {
    fence: { operationId: OP, epoch },
    strategy,
    partitionColumn: 'day',
    partitionValue: '2026-01-02',
    batch,
  };
}

function targetRows(): unknown[] {
  const db = new DatabaseSync(join(dir, 'target.db'));
  try {
    return db.prepare('SELECT day, id, typeof(id) AS id_type, amount FROM events ORDER BY id').all();
  } finally {
    db.close();
  }
}

describe('SqliteSource', () => {
  it('refuses a missing source file instead of creating an empty one', async () => {
    await expect(SqliteSource.open(join(dir, 'missing.db'), 'events', columns)).rejects.toMatchObject({
      code: ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
    });
  });

  it('reads exactly one partition, ordered by the columns', async () => {
    const { batch } = await request(1);
    expect(batch.rows.map((row) => row.id)).toEqual([1, 2]);
  });
});

describe('SqliteTarget', () => {
  it('commits data and marker together and proves it in the fence', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    expect(await target.queryFence(OP)).toMatchObject({ status: 'unknown' });
    await target.prepareFence({ operationId: OP, epoch: 1 });
    expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 1 });
    expect(await target.mutate(await request(1))).toEqual({ rowsWritten: 2, epoch: 1 });
    expect(await target.queryFence(OP)).toEqual({
      status: 'committed',
      epoch: 1,
      committedEpoch: 1,
      rowsWritten: 2,
    });
    expect(targetRows()).toEqual([
      { day: '2026-01-02', id: 1, id_type: 'integer', amount: 1.5 },
      { day: '2026-01-02', id: 2, id_type: 'integer', amount: 2.5 },
    ]);
  });

  it('refuses a stale epoch and writes nothing (a zombie is fenced)', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence({ operationId: OP, epoch: 1 });
    await target.prepareFence({ operationId: OP, epoch: 2 });
    await expect(target.mutate(await request(1))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    await expect(target.prepareFence({ operationId: OP, epoch: 1 })).rejects.toMatchObject({
      code: ERROR_CODES.FENCED,
    });
    expect(targetRows()).toEqual([]);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 2 });
  });

  it('raising the epoch never clears a committed marker', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence({ operationId: OP, epoch: 1 });
    await target.mutate(await request(1));
    await target.prepareFence({ operationId: OP, epoch: 5 });
    expect(await target.queryFence(OP)).toEqual({
      status: 'committed',
      epoch: 5,
      committedEpoch: 1,
      rowsWritten: 2,
    });
  });

  it('replace-partition deletes the partition first, in the same transaction', async () => {
    const db = new DatabaseSync(join(dir, 'target.db'));
    db.exec('CREATE TABLE events (day, id, amount)');
    db.exec(`INSERT INTO events VALUES ('2026-01-02', 9, 9.0), ('2026-01-03', 8, 8.0)`);
    db.close();
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence({ operationId: OP, epoch: 1 });
    await target.mutate(await request(1, 'replace-partition'));
    expect(targetRows().map((row) => (row as { id: number }).id)).toEqual([1, 2, 8]);
  });
});

describe('unsafe variants', () => {
  it('are selected only when DPONE_HARNESS=1 accompanies DPONE_UNSAFE_VARIANT', async () => {
    await using safe = await sqliteTargetForHarness(targetOptions(), { DPONE_UNSAFE_VARIANT: 'no-fence' });
    expect(safe).toBeInstanceOf(SqliteTarget);
    await using unsafe = await sqliteTargetForHarness(targetOptions(), {
      DPONE_UNSAFE_VARIANT: 'no-fence',
      DPONE_HARNESS: '1',
    });
    expect(unsafe).not.toBeInstanceOf(SqliteTarget);
    await expect(
      sqliteTargetForHarness(targetOptions(), { DPONE_UNSAFE_VARIANT: 'nope', DPONE_HARNESS: '1' }),
    ).rejects.toMatchObject({ code: ERROR_CODES.INVALID_INPUT });
  });

  it('query-lies hides a commit and ignore-epoch lets a stale epoch write', async () => {
    await using lies = await UNSAFE_SQLITE_VARIANTS['query-lies']!(targetOptions());
    await lies.prepareFence({ operationId: OP, epoch: 1 });
    await lies.mutate(await request(1));
    expect(await lies.queryFence(OP)).toMatchObject({ status: 'not-committed' });
    await using ignores = await UNSAFE_SQLITE_VARIANTS['ignore-epoch']!(targetOptions());
    await ignores.prepareFence({ operationId: OP, epoch: 7 });
    await ignores.mutate(await request(3));
    expect(targetRows()).toHaveLength(4);
  });
});
