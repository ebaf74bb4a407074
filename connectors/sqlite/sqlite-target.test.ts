import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { MemoryJournal } from '../../src/adapters/journal/memory/memory-journal.ts';
import { RecoveryAwareExecutor } from '../../src/core/executor.ts';
import { SYSTEM_CLOCK } from '../../src/ports/clock.ts';
import type { MutationRequest, SourceConnector } from '../../src/ports/connector.ts';
import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import { collectRows, rowStream, rowStreamOf } from '../../src/ports/row-stream.ts';
import { describeFenceConformance } from '../../testing/fence-conformance.ts';
import type { TargetFlaws } from '../../src/ports/unsafe-variants.ts';
import { flawedProtocol } from '../../src/adapters/connectors/marker-fence/marker-unsafe-target.ts';
import { MarkerTarget } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { sqliteDialect } from './sqlite-dialect.ts';
import { SqliteSource } from './sqlite-source.ts';
import { SqliteTarget, openTargetDatabase } from './sqlite-target.ts';
import { UNSAFE_SQLITE_VARIANTS, sqliteTargetForHarness } from './sqlite-unsafe-variants.ts';
import { TYPED_AMOUNT_CLASSES, TYPED_AMOUNT_VALUES, sourceFolder } from './source-folder.test-support.ts';

const OP = 'sha256:' + 'a'.repeat(64);
const INTENT = 'sha256:' + '1'.repeat(64);
const ref = (epoch: number, holder = `h${epoch}`) => ({
  operationId: OP,
  epoch,
  intentDigest: INTENT,
  holder,
});
const CREATE = { create: true } as const;
const columns = ['day', 'id', 'amount'] as const;
const folder = sourceFolder(
  'dpone-sqlite-',
  [
    'CREATE TABLE events (day TEXT, id INTEGER, amount REAL)',
    `INSERT INTO events VALUES ('2026-01-02', 2, 2.5), ('2026-01-02', 1, 1.5), ('2026-01-03', 3, 3.5)`,
  ],
  columns,
);
const { targetOptions } = folder;

async function request(
  epoch: number,
  strategy: MutationRequest['strategy'] = 'append',
): Promise<MutationRequest> {
  await using source = await SqliteSource.open(folder.at('source.db'), 'events', columns);
  const rows = await collectRows(await source.read({ partitionColumn: 'day', partitionValue: '2026-01-02' }));
  return {
    fence: ref(epoch),
    strategy,
    partitionColumn: 'day',
    partitionValue: '2026-01-02',
    rows: rowStreamOf(columns, rows),
  };
}

/** A marker-fence target on the test's target file whose protocol has `flaws`. */
const flawedMarkerTarget = (flaws: TargetFlaws) =>
  new MarkerTarget(
    sqliteDialect(openTargetDatabase(targetOptions()), 'events'),
    { identity: 'sqlite:events', fenceLocation: 'x' },
    flawedProtocol(flaws),
  );

function targetRows(): unknown[] {
  const db = new DatabaseSync(folder.at('target.db'));
  try {
    return db.prepare('SELECT day, id, typeof(id) AS id_type, amount FROM events ORDER BY id').all();
  } finally {
    db.close();
  }
}

describe('SqliteSource', () => {
  it('refuses a missing source file instead of creating an empty one', async () => {
    await expect(SqliteSource.open(folder.at('missing.db'), 'events', columns)).rejects.toMatchObject({
      code: ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
    });
  });

  it('reads exactly one partition', async () => {
    const { rows } = await request(1);
    expect(rows.columns).toEqual(columns);
    expect((await collectRows(rows)).map((row) => Number(row[1])).sort()).toEqual([1, 2]);
  });
});

describe('SqliteTarget', () => {
  it("keeps each value's storage class: REAL 20.0 stays REAL, INTEGER stays INTEGER (issue 29)", async () => {
    const db = new DatabaseSync(folder.at('typed.db'));
    db.exec('CREATE TABLE t (day TEXT, id INTEGER, amount)');
    db.exec(`INSERT INTO t VALUES ${TYPED_AMOUNT_VALUES}`);
    const kinds = (file: string) => {
      const other = new DatabaseSync(folder.at(file));
      try {
        return other
          .prepare('SELECT id, typeof(amount) AS k, CAST(amount AS TEXT) AS v FROM events ORDER BY id')
          .all();
      } finally {
        other.close();
      }
    };
    db.exec('ALTER TABLE t RENAME TO events');
    db.close();
    await using source = await SqliteSource.open(folder.at('typed.db'), 'events', columns);
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), CREATE);
    const rows = await source.read({ partitionColumn: 'day', partitionValue: 'd' });
    await target.mutate({
      fence: ref(1),
      strategy: 'append',
      partitionColumn: 'day',
      partitionValue: 'd',
      rows,
    });
    expect(kinds('target.db')).toEqual(kinds('typed.db'));
    expect(kinds('target.db').map((r) => r.k)).toEqual(TYPED_AMOUNT_CLASSES);
  });

  it('commits data and marker together and proves it in the fence', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    expect(target.fenceLocation).toBe('sqlite:main._dpone_fence');
    expect(await target.queryFence(OP)).toMatchObject({ status: 'unknown' });
    await target.prepareFence(ref(1), CREATE);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 1 });
    expect(await target.mutate(await request(1))).toEqual({ applied: true, rowsWritten: 2, epoch: 1 });
    expect(await target.queryFence(OP)).toMatchObject({
      status: 'committed',
      committedEpoch: 1,
      rowsWritten: 2,
      intentDigest: INTENT,
    });
    expect(targetRows()).toEqual([
      { day: '2026-01-02', id: 1, id_type: 'integer', amount: 1.5 },
      { day: '2026-01-02', id: 2, id_type: 'integer', amount: 2.5 },
    ]);
  });

  it('refuses a stale epoch and writes nothing (a zombie is fenced)', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), CREATE);
    await target.prepareFence(ref(2), CREATE);
    await expect(target.mutate(await request(1))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expect(await target.prepareFence(ref(1), CREATE)).toMatchObject({ installed: false, epoch: 2 });
    expect(targetRows()).toEqual([]);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 2 });
  });

  it('raising the epoch never clears a committed marker', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), CREATE);
    await target.mutate(await request(1));
    await target.prepareFence(ref(5), CREATE);
    expect(await target.queryFence(OP)).toMatchObject({
      status: 'committed',
      epoch: 5,
      committedEpoch: 1,
      rowsWritten: 2,
    });
  });

  it('replace-partition deletes the partition first, in the same transaction', async () => {
    const db = new DatabaseSync(folder.at('target.db'));
    db.exec('CREATE TABLE events (day, id, amount)');
    db.exec(`INSERT INTO events VALUES ('2026-01-02', 9, 9.0), ('2026-01-03', 8, 8.0)`);
    db.close();
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), CREATE);
    await target.mutate(await request(1, 'replace-partition'));
    expect(targetRows().map((row) => (row as { id: number }).id)).toEqual([1, 2, 8]);
  });
});

describe('a source that fails while its rows stream in', () => {
  function* failing() {
    yield [['2026-01-02', 1, 1.5]];
    throw new DponeError(ERROR_CODES.PRE_COMMIT_FAILED, 'the source connection was lost mid-read');
  }
  const failingRequest = (epoch: number): MutationRequest => ({
    fence: ref(epoch),
    strategy: 'append',
    partitionColumn: 'day',
    partitionValue: '2026-01-02',
    rows: rowStream(columns, failing),
  });

  it('rolls the whole transaction back: the first chunk is not kept, the fence stays open', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), CREATE);
    await expect(target.mutate(failingRequest(1))).rejects.toMatchObject({
      code: ERROR_CODES.PRE_COMMIT_FAILED,
    });
    expect(targetRows()).toEqual([]);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 1 });
  });

  it('the executor asks the fence, which proves nothing landed, and a retry loads every row once', async () => {
    const journal = new MemoryJournal();
    await using target = await SqliteTarget.open(targetOptions());
    await using good = await SqliteSource.open(folder.at('source.db'), 'events', columns);
    const failingSource: SourceConnector = {
      identity: 'sqlite:events',
      read: async () => rowStream(columns, failing),
      close: async () => undefined,
      [Symbol.asyncDispose]: async () => undefined,
    };
    const execute = (source: SourceConnector, holder: string) =>
      new RecoveryAwareExecutor({
        journal,
        source,
        target,
        state: { complete: async () => undefined },
        faults: NO_FAULTS,
        clock: SYSTEM_CLOCK,
      }).execute({
        operationId: OP,
        intentDigest: INTENT,
        metadata: {
          workload_id: 'w',
          target_identity: 'sqlite:events',
          fence_location: target.fenceLocation,
        },
        strategy: 'append',
        partitionColumn: 'day',
        partitionValue: '2026-01-02',
        holder,
        leaseTtlMs: 30_000,
      });
    await expect(execute(failingSource, 'first')).rejects.toMatchObject({
      code: ERROR_CODES.PRE_COMMIT_FAILED,
    });
    expect(targetRows()).toEqual([]);
    expect(await execute(good, 'retry')).toMatchObject({
      status: 'committed',
      rowsWritten: 2,
      mutated: true,
    });
    expect(targetRows()).toHaveLength(2);
  });
});

describe('unsafe variants', () => {
  it('target-sync-off is the certified target on a connection with synchronous=OFF, only under DPONE_HARNESS=1', async () => {
    const synchronous = (db: { prepare(sql: string): { get(): unknown } }) =>
      (db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
    const certified = openTargetDatabase(targetOptions());
    const unsafe = openTargetDatabase(targetOptions(), true, { synchronous: 'OFF' });
    try {
      expect(synchronous(certified)).toBe(2); // FULL: a COMMIT that returned is on disk
      expect(synchronous(unsafe)).toBe(0); // OFF
    } finally {
      certified.close();
      unsafe.close();
    }
    await using harnessed = await sqliteTargetForHarness(targetOptions(), {
      DPONE_UNSAFE_VARIANT: 'target-sync-off',
      DPONE_HARNESS: '1',
    });
    expect(harnessed).toBeInstanceOf(SqliteTarget);
    expect(UNSAFE_SQLITE_VARIANTS['target-sync-off']).toBeDefined();
  });

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

  it('query-lies is harmless for data on a marker fence: the status guard refuses the replay it invites', async () => {
    expect(UNSAFE_SQLITE_VARIANTS['query-lies']).toBeUndefined();
    await using lies = flawedMarkerTarget({ queryLies: true });
    await lies.prepareFence(ref(1), CREATE);
    await lies.mutate(await request(1));
    expect(await lies.queryFence(OP)).toMatchObject({ status: 'not-committed' });
    expect(await lies.prepareFence(ref(2), CREATE)).toMatchObject({
      status: 'not-committed',
      installed: true,
    });
    expect(await lies.mutate(await request(2))).toMatchObject({ applied: false });
    expect(targetRows()).toHaveLength(2);
  });

  it('guard-epoch-only (the fence before issue 10) lets a reissued epoch of another holder write twice', async () => {
    await using old = await UNSAFE_SQLITE_VARIANTS['guard-epoch-only']!(targetOptions());
    await old.prepareFence(ref(1, 'journal-a'), CREATE);
    await old.mutate(await request(1));
    // A reset journal issues epoch 1 again, to another holder: accepted, and the guard writes again.
    expect(await old.prepareFence(ref(1, 'journal-b'), CREATE)).toMatchObject({ installed: true });
    expect(await old.mutate(await request(1))).toMatchObject({ applied: true });
    expect(targetRows()).toHaveLength(4);
  });

  it('ignore-epoch: a stale zombie commits while the newer holder has only prepared (the pause cell zombie-fenced sees it)', async () => {
    await using ignores = await UNSAFE_SQLITE_VARIANTS['ignore-epoch']!(targetOptions());
    await ignores.prepareFence(ref(1), CREATE);
    // The takeover prepares epoch 2 (the flawed fence does not raise it) and holds there.
    await ignores.prepareFence(ref(2), CREATE);
    // The zombie of epoch 1 resumes into its commit: let through under a superseded epoch.
    expect(await ignores.mutate(await request(1))).toMatchObject({ applied: true });
    expect(targetRows()).toHaveLength(2);
  });

  it('ignore-epoch still writes once: after a commit the status guard refuses the zombie', async () => {
    await using ignores = flawedMarkerTarget({ ignoreEpoch: true });
    await ignores.prepareFence(ref(7), CREATE);
    await ignores.mutate(await request(7));
    // A zombie of epoch 3 (stale) is not refused for its epoch, but the fence is committed already.
    await expect(ignores.mutate(await request(3))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expect(targetRows()).toHaveLength(2);
  });
});

describeFenceConformance('sqlite', async (options) => {
  const path = join(mkdtempSync(join(tmpdir(), 'dpone-sqlite-fence-')), 'target.db');
  const target = await SqliteTarget.open({
    path,
    table: 'events',
    columns: ['id', 'part', 'v'],
    naturalKey: ['id'],
    ...(options ? { faults: options.faults } : {}),
  });
  return {
    target,
    rows: async () => {
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        return Number(db.prepare('SELECT count(*) AS n FROM events').get()!.n);
      } finally {
        db.close();
      }
    },
    [Symbol.asyncDispose]: async () => {
      await target.close();
      rmSync(join(path, '..'), { recursive: true, force: true });
    },
  };
});
