import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { RowOrigin, RowStream } from '../../src/ports/connector.ts';
import { rowStream } from '../../src/ports/row-stream.ts';
import { openSqlite } from './sqlite-connection.ts';
import { SOURCE_SCHEMA, copyRows } from './sqlite-copy.ts';
import { SqliteSource } from './sqlite-source.ts';
import { SqliteTarget } from './sqlite-target.ts';
import { UNSAFE_SQLITE_VARIANTS } from './sqlite-unsafe-variants.ts';
import { TYPED_AMOUNT_CLASSES, TYPED_AMOUNT_VALUES, sourceFolder } from './source-folder.test-support.ts';

const OP = 'sha256:' + 'c'.repeat(64);
const INTENT = 'sha256:' + '2'.repeat(64);
const ref = (epoch: number) => ({ operationId: OP, epoch, intentDigest: INTENT, holder: `h${epoch}` });
const columns = ['day', 'id', 'amount'] as const;
const folder = sourceFolder(
  'dpone-sqlite-copy-',
  [
    'CREATE TABLE events (day TEXT, id INTEGER, amount)',
    `INSERT INTO events VALUES ${TYPED_AMOUNT_VALUES}, ('d', 7, 'e' || char(769)), ('other', 8, 1), ('r', 9, 20.0)`,
  ],
  columns,
);
const { targetOptions } = folder;

const origin = (table = 'events', location = folder.at('source.db')): RowOrigin => ({
  engine: 'sqlite',
  location,
  table,
  partitionColumn: 'day',
  partitionValue: 'd',
});

/** A stream that refuses to be read: only an engine copy can land its rows. */
function unreadable(from: RowOrigin | undefined): RowStream {
  const never = (): Iterator<never> => ({
    next: () => {
      throw new Error('the rows were read into JS');
    },
  });
  return Object.assign(rowStream(columns, never), from ? { origin: from } : {});
}

/** Each row's id, storage class and text of its amount, in the file's `events` table. */
function stored(file: string, table = 'events'): unknown[] {
  const db = new DatabaseSync(folder.at(file));
  try {
    return db
      .prepare(`SELECT id, typeof(amount) AS k, hex(amount) AS v FROM ${table} WHERE day = 'd' ORDER BY id`)
      .all();
  } finally {
    db.close();
  }
}

async function mutate(target: SqliteTarget, rows: RowStream, epoch = 1) {
  return target.mutate({
    fence: ref(epoch),
    strategy: 'append',
    partitionColumn: 'day',
    partitionValue: 'd',
    rows,
  });
}

describe('the SQLite engine copy (a SQLite source file into a SQLite target)', () => {
  it('lands the partition without reading a row into JS, values in their storage classes', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), { create: true });
    expect(await mutate(target, unreadable(origin()))).toMatchObject({ applied: true, rowsWritten: 7 });
    expect(stored('target.db')).toEqual(stored('source.db'));
    expect(stored('target.db').map((row) => (row as { k: string }).k)).toEqual([
      ...TYPED_AMOUNT_CLASSES,
      'text',
    ]);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'committed', rowsWritten: 7 });
  });

  it("a SqliteSource's stream carries its origin; a plain stream without one is read as before", async () => {
    await using source = await SqliteSource.open(folder.at('source.db'), 'events', columns);
    const rows = await source.read({ partitionColumn: 'day', partitionValue: 'd' });
    expect(rows.origin).toEqual(origin());
    await rows.close();
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), { create: true });
    await expect(mutate(target, unreadable(undefined))).rejects.toThrow();
    expect(stored('target.db')).toEqual([]);
  });

  it("the target's own file as the origin is streamed, never attached", async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), { create: true });
    await expect(mutate(target, unreadable(origin('events', folder.at('target.db'))))).rejects.toThrow();
    expect(stored('target.db')).toEqual([]);
  });

  it('a refused guard copies nothing, and the source is detached after every transaction', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(2), { create: true });
    await expect(mutate(target, unreadable(origin()), 1)).rejects.toMatchObject({
      code: ERROR_CODES.FENCED,
    });
    expect(stored('target.db')).toEqual([]);
    await mutate(target, unreadable(origin()), 2);
    const db = new DatabaseSync(folder.at('target.db'));
    try {
      const schemas = db.prepare('SELECT name FROM pragma_database_list').all();
      expect(schemas.map((row) => row.name)).not.toContain(SOURCE_SCHEMA);
    } finally {
      db.close();
    }
  });

  it('a source that fails during the copy rolls the transaction back: the fence proves nothing landed', async () => {
    await using target = await SqliteTarget.open(targetOptions());
    await target.prepareFence(ref(1), { create: true });
    await expect(mutate(target, unreadable(origin('vanished')))).rejects.toMatchObject({
      code: ERROR_CODES.COMMIT_UNKNOWN,
    });
    expect(stored('target.db')).toEqual([]);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 1 });
  });

  it('attaches the source read-only: the copy cannot write a byte of it', async () => {
    const db = openSqlite(folder.at('target.db'));
    try {
      db.exec(`CREATE TABLE events (${columns.join(', ')})`);
      db.exec('BEGIN IMMEDIATE');
      await copyRows(db, 'events', columns, origin());
      expect(() => db.exec(`DELETE FROM ${SOURCE_SCHEMA}.events`)).toThrow(/readonly|read-only/i);
      db.exec('ROLLBACK');
    } finally {
      db.close();
    }
  });

  it('copies every row once across rowid ranges: gaps, negative rowids, a column named rowid', async () => {
    const src = new DatabaseSync(folder.at('source.db'));
    src.exec('CREATE TABLE ranged (day TEXT, id INTEGER, amount, rowid)');
    const insert = src.prepare('INSERT INTO ranged (_rowid_, day, id, amount, rowid) VALUES (?, ?, ?, ?, ?)');
    const ids = [-9_000_000_000_000_000_000n, -5n, 1n, 2n, 3n, 10n, 11n, 1_000_000n, 1_000_001n, 2n ** 62n];
    ids.forEach((key, i) => insert.run(key, i % 4 === 3 ? 'other' : 'd', i, i * 1.5, 'shadow'));
    src.close();
    const db = openSqlite(folder.at('target.db'));
    try {
      db.exec(`CREATE TABLE ranged (${columns.join(', ')})`);
      for (const chunk of [1, 2, 3, 100]) {
        db.exec('BEGIN IMMEDIATE');
        const written = await copyRows(db, 'ranged', columns, origin('ranged'), chunk);
        const got = db
          .prepare('SELECT id FROM ranged ORDER BY id')
          .all()
          .map((row) => Number(row.id));
        db.exec('ROLLBACK');
        expect({ chunk, written, got }).toEqual({ chunk, written: 8, got: [0, 1, 2, 4, 5, 6, 8, 9] });
      }
    } finally {
      db.close();
    }
  });

  it('a WITHOUT ROWID table is copied in one statement', async () => {
    const src = new DatabaseSync(folder.at('source.db'));
    src.exec('CREATE TABLE keyed (day TEXT, id INTEGER PRIMARY KEY, amount) WITHOUT ROWID');
    src.exec("INSERT INTO keyed VALUES ('d', 1, 1.0), ('d', 2, 2), ('x', 3, 3)");
    src.close();
    const db = openSqlite(folder.at('target.db'));
    try {
      db.exec(`CREATE TABLE keyed (${columns.join(', ')})`);
      db.exec('BEGIN IMMEDIATE');
      expect(await copyRows(db, 'keyed', columns, origin('keyed'), 1)).toBe(2);
      db.exec('COMMIT');
    } finally {
      db.close();
    }
    expect(stored('target.db', 'keyed')).toEqual(stored('source.db', 'keyed'));
  });

  it('a variant that changes values on the way is streamed, so its flaw still lands (real-as-integer)', async () => {
    await using source = await SqliteSource.open(folder.at('source.db'), 'events', columns);
    await using target = await UNSAFE_SQLITE_VARIANTS['real-as-integer']!(targetOptions());
    await target.prepareFence(ref(1), { create: true });
    await target.mutate({
      fence: ref(1),
      strategy: 'append',
      partitionColumn: 'day',
      partitionValue: 'r',
      rows: await source.read({ partitionColumn: 'day', partitionValue: 'r' }),
    });
    const db = new DatabaseSync(folder.at('target.db'));
    try {
      expect(db.prepare('SELECT id, typeof(amount) AS k FROM events').all()).toEqual([
        { id: 9, k: 'integer' },
      ]);
    } finally {
      db.close();
    }
  });
});
