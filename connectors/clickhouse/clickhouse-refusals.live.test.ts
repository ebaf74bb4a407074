import { describe, expect, it } from 'vitest';
import { CLICKHOUSE_USERS } from './harness/env/clickhouse-server.ts';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { ClickHouseTarget } from './clickhouse-target.ts';
import { COLUMNS, CREATE, fence, liveClickHouse, request, unverified } from './fixtures/clickhouse-live.ts';

/**
 * Issue 12 rows 3 and 6: tables and endpoints the protocol cannot use are refused before anything
 * is written, each with a non-retry code (the executor then releases the lease), never with a
 * retry code, and without the password or the server's message in what the error says.
 */
const live = liveClickHouse('refuse');
const { freshDb, open, count } = live;

async function refusal(opening: Promise<ClickHouseTarget>) {
  const error = await opening.then(
    async (target) => {
      await target.close();
      return null;
    },
    (e: unknown) => e as { code?: string; message: string; fields?: Record<string, unknown> },
  );
  expect(error).not.toBeNull();
  expect(`${error?.message} ${JSON.stringify(error)}`).not.toContain(live.server().password);
  return error!;
}

const OWN_TABLE = (engine: string) =>
  `(id String, part String, v Nullable(String), _dpone_op String, _dpone_epoch UInt64) ENGINE = ${engine} PARTITION BY part ORDER BY id`;

describe.skipIf(unverified)('clickhouse target refuses what it cannot keep its promises on (live)', () => {
  for (const engine of ['ReplacingMergeTree', 'SummingMergeTree', 'CollapsingMergeTree(v8)']) {
    it(`a ${engine} target: INVALID_INPUT naming the engine, nothing written`, async () => {
      const db = await freshDb();
      const ddl = engine.startsWith('Collapsing')
        ? OWN_TABLE(engine).replace('_dpone_epoch UInt64)', '_dpone_epoch UInt64, v8 Int8)')
        : OWN_TABLE(engine);
      await live.server().exec(`CREATE TABLE ${db}.events ${ddl}`);
      const error = await refusal(open(db));
      expect(error).toMatchObject({ code: ERROR_CODES.INVALID_INPUT, fields: { field: 'target.table' } });
      expect(error.message).toContain(engine.replace(/\(.*/, ''));
      expect(await count(db)).toBe(0);
    });
  }

  it('a table without the generation columns or partitioned otherwise: INVALID_INPUT', async () => {
    const db = await freshDb();
    await live
      .server()
      .exec(
        `CREATE TABLE ${db}.events (id String, part String, v Nullable(String)) ENGINE = MergeTree PARTITION BY part ORDER BY id`,
      );
    expect(await refusal(open(db))).toMatchObject({ code: ERROR_CODES.INVALID_INPUT });
    const other = await freshDb();
    await live
      .server()
      .exec(
        `CREATE TABLE ${other}.events ${OWN_TABLE('MergeTree').replace('PARTITION BY part', 'PARTITION BY v')}`.replace(
          'v Nullable(String)',
          'v String',
        ),
      );
    expect(await refusal(open(other))).toMatchObject({ code: ERROR_CODES.INVALID_INPUT });
  });

  it('a workload column the table lacks: OBJECT_NOT_FOUND naming the column', async () => {
    const db = await freshDb();
    await live
      .server()
      .exec(
        `CREATE TABLE ${db}.events (id String, part String, _dpone_op String, _dpone_epoch UInt64) ENGINE = MergeTree PARTITION BY part ORDER BY id`,
      );
    const error = await refusal(open(db));
    expect(error).toMatchObject({ code: ERROR_CODES.OBJECT_NOT_FOUND });
    expect(error.message).toContain('column v');
  });

  it('a missing database: OBJECT_NOT_FOUND (exit 32), not "unreachable, retry"', async () => {
    expect(await refusal(open('no_such_db'))).toMatchObject({ code: ERROR_CODES.OBJECT_NOT_FOUND });
  });

  it('a wrong password: AUTHENTICATION_FAILED (exit 30), and the password is never shown', async () => {
    const server = live.server();
    const error = await refusal(
      open('default', undefined, {
        url: server.url('default', CLICKHOUSE_USERS.writer),
        password: 'wrong-pw-123',
      }),
    );
    expect(error).toMatchObject({ code: ERROR_CODES.AUTHENTICATION_FAILED });
    expect(error.message).not.toContain('wrong-pw-123');
  });

  it('a read-only user: PERMISSION_DENIED (exit 31)', async () => {
    const db = await freshDb();
    const server = live.server();
    await using admin = await open(db); // creates the tables
    void admin;
    const error = await refusal(
      open(db, undefined, { url: server.url(db, CLICKHOUSE_USERS.reader), password: server.password }),
    );
    expect(error).toMatchObject({ code: ERROR_CODES.PERMISSION_DENIED });
  });

  it('the right password works', async () => {
    const db = await freshDb();
    const server = live.server();
    await using target = await open(db, undefined, {
      url: server.url(db, CLICKHOUSE_USERS.writer),
      password: server.password,
      columns: COLUMNS,
    });
    await target.prepareFence(fence(1), CREATE);
    expect(await target.mutate(request(1))).toEqual({ applied: true, rowsWritten: 2, epoch: 1 });
  });
});
