import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import { FakeMssql, driverError } from './mssql-fake-driver.ts';
import { FENCE_SQL, installFenceSql } from './mssql-fence.ts';
import { committedRows, fenceModel } from './mssql-fence-model.ts';
import { MssqlTarget } from './mssql-target.ts';
import { describeFenceConformance } from '../../testing/fence-conformance.ts';
import {
  COLUMNS,
  CREATE,
  INTENT,
  OP,
  PASSWORD,
  URL,
  batch,
  caught,
  open,
  ref,
  request,
  targetOptions,
} from './mssql-target.test-support.ts';

/** The statements of one transaction, in order. */
const inTx = (fake: FakeMssql, tx: number) => fake.queries.filter((q) => q.tx === tx).map((q) => q.text);

describe('MssqlTarget (driver slice faked: no server needed)', () => {
  it('opens with the env password, TLS on, and creates the fence and target tables', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    const target = await MssqlTarget.open(targetOptions(fake));
    expect(fake.configs[0]).toMatchObject({
      user: 'etl_user',
      password: PASSWORD,
      options: { encrypt: true },
    });
    const ddl = fake.queries.map((q) => q.text);
    expect(ddl[0]).toContain(
      'CREATE TABLE [dbo].[_dpone_fence] (operation_id NVARCHAR(80) NOT NULL PRIMARY KEY',
    );
    expect(ddl[1]).toContain("IF COL_LENGTH(N'dbo._dpone_fence', N'intent_digest') IS NULL ALTER TABLE");
    expect(ddl[3]).toContain('CREATE TABLE [dbo].[events] ([id] NVARCHAR(MAX) NULL');
    expect([target.identity, target.capability, target.fenceLocation]).toEqual([
      'mssql:dbo.events',
      'transactional-commit-marker',
      'mssql:dbo._dpone_fence',
    ]);
    await target.close();
    expect(fake.kinds.at(-1)).toBe('close');
  });

  it('writes data and marker in one transaction whose first statement is the epoch guard', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    await using target = await open(fake);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'unknown', epoch: null });
    expect(await target.prepareFence(ref(1), CREATE)).toMatchObject({
      installed: true,
      epoch: 1,
      status: 'not-committed',
    });
    fake.events.length = 0;
    expect(await target.mutate(request(1))).toEqual({ applied: true, rowsWritten: 2, epoch: 1 });
    const tx = (fake.events[0] as { tx: number }).tx;
    expect(fake.kinds).toEqual(['begin', 'query', 'bulk', 'query', 'commit']);
    expect(inTx(fake, tx)[0]).toBe(FENCE_SQL.guard);
    // The guard comes before any row, so it cannot know their count: the last statement records it.
    expect(fake.queries[0]!.params).toEqual({
      operation_id: OP,
      epoch: 1,
      intent_digest: INTENT,
      holder: 'h1',
      rows_written: null,
      now_ms: expect.any(Number),
    });
    expect(inTx(fake, tx)[1]).toBe('INSERT BULK [dbo].[events] ([id], [part], [v])');
    expect(fake.queries[1]!.rows).toEqual([
      ['0', 'p1', 'v0'],
      ['1', 'p1', 'v1'],
    ]);
    expect(inTx(fake, tx)[2]).toBe(FENCE_SQL.recordRows);
    expect(fake.queries[2]!.params).toEqual({ operation_id: OP, epoch: 1, rows_written: 2 });
    expect(await target.queryFence(OP)).toMatchObject({
      status: 'committed',
      epoch: 1,
      committedEpoch: 1,
      rowsWritten: 2,
    });
  });

  it('@@ROWCOUNT 0 from the guard: the row is read in the same transaction, FENCED, rolled back', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    await using target = await open(fake);
    await target.prepareFence(ref(1), CREATE);
    await target.prepareFence(ref(2), CREATE);
    fake.events.length = 0;
    const error = await caught(target.mutate(request(1, batch(5), 'replace-partition')));
    expect([error.code, error.fields.operationId]).toEqual([ERROR_CODES.FENCED, OP]);
    expect(fake.kinds).toEqual(['begin', 'query', 'query', 'rollback']);
    expect(fake.queries.map((q) => q.text)).toEqual([FENCE_SQL.guard, FENCE_SQL.select]);
    expect(new Set(fake.queries.map((q) => q.tx)).size).toBe(1);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 2 });
  });

  it('prepareFence is one batch, raises the epoch only upward and answers a newer one without installing', async () => {
    const fake = new FakeMssql();
    const fences = fenceModel(fake);
    await using target = await open(fake);
    await target.prepareFence(ref(3), CREATE);
    expect(fake.queries[0]!.text).toBe(installFenceSql(true));
    expect(fake.queries[0]!.text).toMatch(/WITH \(UPDLOCK, HOLDLOCK\).*AND epoch < @epoch/);
    expect(await target.prepareFence(ref(2), CREATE)).toMatchObject({ installed: false, epoch: 3 });
    expect(fences.get(OP)?.epoch).toBe(3);
    await target.prepareFence(ref(4), { create: false });
    expect(fake.queries.at(-1)!.text).toBe(installFenceSql(false));
    expect(installFenceSql(false)).not.toContain('INSERT');
    expect(fake.kinds.filter((k) => k !== 'query')).toEqual([
      'begin',
      'commit',
      'begin',
      'commit',
      'begin',
      'commit',
    ]);
  });

  it('fault points wrap the commit: begin, before, sent (commit already handed over), after', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    const seen: string[] = [];
    const faults: FaultPoints = {
      hit: (point) => void seen.push(`${point}${fake.kinds.includes('commit') ? ' +commit' : ''}`),
    };
    await using target = await open(fake, { faults });
    await target.prepareFence(ref(1), CREATE);
    fake.events.length = 0;
    await target.mutate(request(1));
    expect(seen).toEqual([
      'target.mutate:begin',
      'target.commit:before',
      'target.commit:sent +commit',
      'target.commit:after +commit',
    ]);
  });

  it('an unreachable server or a failing fence statement is FENCE_UNAVAILABLE; the driver error stays in cause', async () => {
    const fake = new FakeMssql();
    const login = driverError(18456, `Login failed for user 'etl_user' (${PASSWORD}) at db.example`);
    fake.connectError = login;
    const onOpen = await caught(open(fake));
    expect([onOpen.code, onOpen.cause]).toEqual([ERROR_CODES.FENCE_UNAVAILABLE, login]);

    fake.connectError = undefined;
    fenceModel(fake);
    await using target = await open(fake);
    const timeout = driverError(undefined, `Timeout: ${installFenceSql(true)} on db.example`);
    fake.respond = () => {
      throw timeout;
    };
    const onPrepare = await caught(target.prepareFence(ref(1), CREATE));
    expect([onPrepare.code, onPrepare.fields.operationId, onPrepare.cause]).toEqual([
      ERROR_CODES.FENCE_UNAVAILABLE,
      OP,
      timeout,
    ]);
    expect(fake.kinds).toContain('rollback');
    // The failed pool was dropped; the next call reconnects, and a refused connection is unavailable too.
    fake.connectError = login;
    const onQuery = await caught(target.queryFence(OP));
    expect(onQuery.code).toBe(ERROR_CODES.FENCE_UNAVAILABLE);
    expect(fake.kinds.slice(-3)).toEqual(['close', 'connect', 'close']);
  });

  it('with the real driver, a closed port is FENCE_UNAVAILABLE without user, host or password', async () => {
    const error = await caught(
      MssqlTarget.open({
        url: 'mssql://etl_user@127.0.0.1:1/warehouse?connect_timeout_ms=2000',
        password: PASSWORD,
        table: 'events',
        columns: COLUMNS,
        naturalKey: ['id'],
        env: {},
      }),
    );
    expect(error.code).toBe(ERROR_CODES.FENCE_UNAVAILABLE);
    expect(`${error.message}${JSON.stringify(error)}`).not.toContain('127.0.0.1');
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a driver error mid-mutation is COMMIT_UNKNOWN: rolled back before COMMIT, left to the fence after', async () => {
    const fake = new FakeMssql();
    fenceModel(fake, (q) => {
      if (q.text.startsWith('INSERT'))
        throw driverError(8152, `String or binary data would be truncated: ${q.text}`);
      return undefined;
    });
    await using target = await open(fake);
    await target.prepareFence(ref(1), CREATE);
    const beforeCommit = await caught(target.mutate(request(1)));
    expect(beforeCommit.code).toBe(ERROR_CODES.COMMIT_UNKNOWN);
    expect(fake.kinds.slice(-3)).toEqual(['bulk', 'rollback', 'close']);

    let armed = false;
    const lost = new FakeMssql();
    fenceModel(lost);
    const driver = lost.driver();
    const Pool = driver.ConnectionPool;
    await using second = await MssqlTarget.open({
      ...targetOptions(lost),
      table: 'events',
      loadDriver: async () => ({
        ...driver,
        ConnectionPool: class extends Pool {
          override transaction() {
            const tx = super.transaction();
            if (!armed) return tx;
            return {
              ...tx,
              commit: async () => Promise.reject(driverError(-1, 'Connection lost - read ECONNRESET')),
            };
          }
        },
      }),
    });
    await second.prepareFence(ref(1), CREATE);
    armed = true;
    lost.events.length = 0;
    const afterCommit = await caught(second.mutate(request(1)));
    expect(afterCommit.code).toBe(ERROR_CODES.COMMIT_UNKNOWN);
    expect(lost.kinds).not.toContain('rollback');
  });

  it('unsafe variants answer only under DPONE_HARNESS=1; an unknown name is INVALID_INPUT', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    const variant = { DPONE_UNSAFE_VARIANT: 'no-fence' };
    await using safe = await open(fake, { env: variant });
    await expect(safe.mutate(request(1))).rejects.toMatchObject({ code: ERROR_CODES.DIVERGED });
    await using broken = await open(fake, { env: { ...variant, DPONE_HARNESS: '1' } });
    expect(await broken.mutate(request(1))).toEqual({ applied: true, rowsWritten: 2, epoch: 1 });
    expect(fake.queries.map((q) => q.text)).not.toContain(FENCE_SQL.guard);
    const error = await caught(open(fake, { env: { DPONE_HARNESS: '1', DPONE_UNSAFE_VARIANT: 'nope' } }));
    expect([error.code, error.fields.field]).toEqual([ERROR_CODES.INVALID_INPUT, 'DPONE_UNSAFE_VARIANT']);
    // A staging-swap flaw means nothing on a marker fence, so it is not offered: asking for it is
    // refused, not silently certified.
    const elsewhere = await caught(
      open(fake, { env: { DPONE_HARNESS: '1', DPONE_UNSAFE_VARIANT: 'no-seal' } }),
    );
    expect(elsewhere.code).toBe(ERROR_CODES.INVALID_INPUT);
  });

  it('the fence schema is explicit: another schema qualifies every statement; a system schema is refused', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    const target = await MssqlTarget.open({ ...targetOptions(fake), fenceSchema: 'etl' });
    expect(target.fenceLocation).toBe('mssql:etl._dpone_fence');
    expect(fake.queries[0]!.text).toContain('CREATE TABLE [etl].[_dpone_fence]');
    await target.close();
    const refused = await caught(
      MssqlTarget.open({
        url: URL,
        table: 't',
        columns: COLUMNS,
        naturalKey: ['id'],
        fenceSchema: 'sys',
        env: {},
      }),
    );
    expect([refused.code, refused.fields.field]).toEqual([ERROR_CODES.INVALID_INPUT, 'target.fence_schema']);
  });
});

{
  // The kernel's contract on the MSSQL dialect, over the fake (statement order and refusals, not SQL Server).
  const fake = new FakeMssql();
  describeFenceConformance(
    'mssql (fake driver)',
    async (options) => {
      fake.events.length = 0;
      fenceModel(fake);
      const target = await open(fake, options ? { faults: options.faults } : {});
      return { target, rows: async () => committedRows(fake), [Symbol.asyncDispose]: () => target.close() };
    },
    { atomicitySkipReason: 'UNVERIFIED: the fake driver rolls no fence change back (it is not a database)' },
  );
}
