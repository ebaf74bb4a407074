import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../contracts/errors.ts';
import type { FaultPoints } from '../../../ports/fault-points.ts';
import { FakeMssql, driverError } from './mssql-fake-driver.ts';
import { FENCE_SQL, installFenceSql } from './mssql-fence.ts';
import { fenceModel } from './mssql-fence-model.ts';
import { MssqlTarget } from './mssql-target.ts';
import { COLUMNS, OP, PASSWORD, URL, batch, caught, open, request } from './mssql-target.test-support.ts';

/** The statements of one transaction, in order. */
const inTx = (fake: FakeMssql, tx: number) => fake.queries.filter((q) => q.tx === tx).map((q) => q.text);

describe('MssqlTarget (driver slice faked: no server needed)', () => {
  it('opens with the env password, TLS on, and creates the fence and target tables', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    const target = await MssqlTarget.open({
      url: URL,
      password: PASSWORD,
      table: 'dbo.events',
      columns: COLUMNS,
      naturalKey: ['id'],
      env: {},
      loadDriver: async () => fake.driver(),
    });
    expect(fake.configs[0]).toMatchObject({
      user: 'etl_user',
      password: PASSWORD,
      options: { encrypt: true },
    });
    const ddl = fake.queries.map((q) => q.text);
    expect(ddl[0]).toContain('CREATE TABLE _dpone_fence (operation_id NVARCHAR(80) NOT NULL PRIMARY KEY');
    expect(ddl[1]).toContain('CREATE TABLE [dbo].[events] ([id] NVARCHAR(MAX) NULL');
    expect([target.identity, target.capability]).toEqual(['mssql:dbo.events', 'transactional-commit-marker']);
    await target.close();
    expect(fake.kinds.at(-1)).toBe('close');
  });

  it('writes data and marker in one transaction whose first statement is the epoch guard', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    await using target = await open(fake);
    expect(await target.queryFence(OP)).toEqual({
      status: 'unknown',
      epoch: null,
      committedEpoch: null,
      rowsWritten: null,
    });
    expect(await target.prepareFence({ operationId: OP, epoch: 1 })).toEqual({
      epoch: 1,
      status: 'not-committed',
    });
    fake.events.length = 0;
    expect(await target.mutate(request(1))).toEqual({ rowsWritten: 2, epoch: 1 });
    const tx = (fake.events[0] as { tx: number }).tx;
    expect(fake.kinds).toEqual(['begin', 'query', 'query', 'commit']);
    expect(inTx(fake, tx)[0]).toBe(FENCE_SQL.guard);
    expect(fake.queries[0]!.params).toEqual({
      operation_id: OP,
      epoch: 1,
      rows_written: 2,
      now_ms: expect.any(Number),
    });
    expect(inTx(fake, tx)[1]).toMatch(
      /^INSERT INTO \[dbo\]\.\[events\] \(\[id\], \[part\], \[v\]\) VALUES \(@p0, @p1, @p2\), \(@p3/,
    );
    expect(await target.queryFence(OP)).toEqual({
      status: 'committed',
      epoch: 1,
      committedEpoch: 1,
      rowsWritten: 2,
    });
  });

  it('@@ROWCOUNT 0 from the guard rolls back and throws FENCED with nothing written', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    await using target = await open(fake);
    await target.prepareFence({ operationId: OP, epoch: 1 });
    await target.prepareFence({ operationId: OP, epoch: 2 });
    fake.events.length = 0;
    const error = await caught(target.mutate(request(1, batch(5), 'replace-partition')));
    expect([error.code, error.fields.operationId]).toEqual([ERROR_CODES.FENCED, OP]);
    expect(fake.kinds).toEqual(['begin', 'query', 'rollback']);
    expect(fake.queries.map((q) => q.text)).toEqual([FENCE_SQL.guard]);
    expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 2 });
  });

  it('prepareFence raises the epoch only upward and refuses a smaller one with FENCED', async () => {
    const fake = new FakeMssql();
    const fences = fenceModel(fake);
    await using target = await open(fake);
    await target.prepareFence({ operationId: OP, epoch: 3 });
    expect(fake.queries[0]!.text).toBe(installFenceSql(true));
    expect(fake.queries[0]!.text).toMatch(/WITH \(UPDLOCK, HOLDLOCK\).*AND epoch < @epoch/);
    const error = await caught(target.prepareFence({ operationId: OP, epoch: 2 }));
    expect(error.code).toBe(ERROR_CODES.FENCED);
    expect(fences.get(OP)?.epoch).toBe(3);
    expect(fake.kinds.filter((k) => k !== 'query')).toEqual(['begin', 'commit', 'begin', 'commit']);
  });

  it('fault points wrap the commit: begin, before, sent (commit already handed over), after', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    const seen: string[] = [];
    const faults: FaultPoints = {
      hit: (point) => void seen.push(`${point}${fake.kinds.includes('commit') ? ' +commit' : ''}`),
    };
    await using target = await open(fake, { faults });
    await target.prepareFence({ operationId: OP, epoch: 1 });
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
    const onPrepare = await caught(target.prepareFence({ operationId: OP, epoch: 1 }));
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
    await target.prepareFence({ operationId: OP, epoch: 1 });
    const beforeCommit = await caught(target.mutate(request(1)));
    expect(beforeCommit.code).toBe(ERROR_CODES.COMMIT_UNKNOWN);
    expect(fake.kinds.slice(-3)).toEqual(['query', 'rollback', 'close']);

    let armed = false;
    const lost = new FakeMssql();
    fenceModel(lost);
    const driver = lost.driver();
    const Pool = driver.ConnectionPool;
    await using second = await MssqlTarget.open({
      url: URL,
      password: PASSWORD,
      table: 'events',
      columns: COLUMNS,
      naturalKey: ['id'],
      env: {},
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
    await second.prepareFence({ operationId: OP, epoch: 1 });
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
    await expect(safe.mutate(request(1))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    await using broken = await open(fake, { env: { ...variant, DPONE_HARNESS: '1' } });
    expect(await broken.mutate(request(1))).toEqual({ rowsWritten: 2, epoch: 1 });
    expect(fake.queries.map((q) => q.text)).not.toContain(FENCE_SQL.guard);
    const error = await caught(open(fake, { env: { DPONE_HARNESS: '1', DPONE_UNSAFE_VARIANT: 'nope' } }));
    expect([error.code, error.fields.field]).toEqual([ERROR_CODES.INVALID_INPUT, 'DPONE_UNSAFE_VARIANT']);
  });
});
