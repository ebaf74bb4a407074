import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { MutationRequest, TargetConnector } from '../../src/ports/connector.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import { parseMssqlConnectorUrl } from './mssql-connector-config.ts';
import type { MssqlPool } from './mssql-session.ts';
import { loadMssqlDriver } from './mssql-session.ts';
import { MssqlSource } from './mssql-source.ts';
import { MssqlTarget } from './mssql-target.ts';
import { collectRows, rowStreamOf } from '../../src/ports/row-stream.ts';

/**
 * The MSSQL target and source against a real SQL Server, e.g.
 *   DPONE_MSSQL_URL='mssql://sa@127.0.0.1:1433/master?encrypt=true&trustServerCertificate=true' \
 *   DPONE_MSSQL_PASSWORD=… npx vitest run connectors/mssql/mssql-target.live.test.ts
 * Without DPONE_MSSQL_URL there is no server to test against: the suite is skipped and says so.
 */
const url = process.env.DPONE_MSSQL_URL ?? '';
const password = process.env.DPONE_MSSQL_PASSWORD || undefined;
const SKIP =
  'UNVERIFIED: no SQL Server here (set DPONE_MSSQL_URL and DPONE_MSSQL_PASSWORD to run the MSSQL target live)';

const COLUMNS = ['id', 'part', 'v'];
const ROWS = [
  ['1', 'p1', 'a'],
  ['2', 'p1', 'b'],
];
// One table and fresh operation ids per run: runs share the server's fence table.
const TABLE = `dpone_live_${process.pid}_${Date.now()}`;

let admin: MssqlPool;

const open = (table: string, faults?: FaultPoints): Promise<TargetConnector> =>
  MssqlTarget.open({
    url,
    ...(password !== undefined ? { password } : {}),
    table,
    columns: COLUMNS,
    naturalKey: ['id'],
    env: {},
    ...(faults ? { faults } : {}),
  });

const INTENT = `sha256:${'1'.repeat(64)}`;
const ref = (operationId: string, epoch: number) => ({
  operationId,
  epoch,
  intentDigest: INTENT,
  holder: `h${epoch}`,
});
const CREATE = { create: true } as const;

const request = (operationId: string, epoch: number): MutationRequest => ({
  fence: ref(operationId, epoch),
  strategy: 'append',
  partitionColumn: 'part',
  partitionValue: 'p1',
  rows: rowStreamOf(COLUMNS, ROWS),
});

const opId = () => `sha256:${randomUUID().replaceAll('-', '')}`;

async function count(table: string): Promise<number> {
  const result = await admin.request().query(`SELECT COUNT(*) AS n FROM [${table}]`);
  return Number(result.recordset?.[0]?.n);
}

if (url === '') {
  console.warn(SKIP);
  describe.skip(`mssql target and source (live) — ${SKIP}`, () => {
    it('is not run here', () => undefined);
  });
} else {
  describe('mssql target and source (live)', () => {
    beforeAll(async () => {
      const driver = await loadMssqlDriver();
      admin = new driver.ConnectionPool(
        parseMssqlConnectorUrl(url, password, 'DPONE_MSSQL_URL', 'dpone-test'),
      );
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.request().query(`IF OBJECT_ID(N'${TABLE}', N'U') IS NOT NULL DROP TABLE [${TABLE}]`);
      await admin?.close();
    });

    it('writes data and marker together, proves it, and refuses a replay under a stale epoch', async () => {
      const op = opId();
      await using target = await open(TABLE);
      expect(await target.queryFence(op)).toMatchObject({ status: 'unknown' });
      expect(await target.prepareFence(ref(op, 1), CREATE)).toMatchObject({
        installed: true,
        epoch: 1,
        status: 'not-committed',
      });
      expect(await target.mutate(request(op, 1))).toEqual({ applied: true, rowsWritten: 2, epoch: 1 });
      expect(await target.queryFence(op)).toMatchObject({
        status: 'committed',
        committedEpoch: 1,
        rowsWritten: 2,
        intentDigest: INTENT,
      });
      expect(await target.prepareFence(ref(op, 0), CREATE)).toMatchObject({ installed: false, epoch: 1 });
      expect(await target.prepareFence(ref(op, 2), CREATE)).toMatchObject({
        installed: true,
        epoch: 2,
        status: 'committed',
      });
      await expect(target.mutate(request(op, 1))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
      expect(await count(TABLE)).toBe(2);
      await using source = await MssqlSource.open({
        url,
        ...(password !== undefined ? { password } : {}),
        table: TABLE,
        columns: COLUMNS,
      });
      expect(await collectRows(await source.read({ partitionColumn: 'part', partitionValue: 'p1' }))).toEqual(
        ROWS,
      );
    });

    it('a zombie parked before COMMIT holds the guard lock: the new epoch waits, then sees it committed once', async () => {
      const op = opId();
      const before = await count(TABLE);
      let release!: () => void;
      let parked!: () => void;
      const atCommit = new Promise<void>((resolve) => (parked = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      const faults: FaultPoints = {
        hit: (p) => (p === 'target.commit:before' ? (parked(), gate) : undefined),
      };
      await using zombie = await open(TABLE, faults);
      await using next = await open(TABLE);
      await zombie.prepareFence(ref(op, 1), CREATE);
      const writing = zombie.mutate(request(op, 1));
      await atCommit;
      let raised = false;
      const raising = next.prepareFence(ref(op, 2), CREATE).then((e) => ((raised = true), e));
      // Wait until the server itself shows a session blocked on the fence row's lock.
      await expect
        .poll(
          async () =>
            Number(
              (
                await admin
                  .request()
                  .query(
                    'SELECT COUNT(*) AS n FROM sys.dm_exec_requests r JOIN sys.dm_exec_sessions s ' +
                      "ON s.session_id = r.session_id WHERE r.blocking_session_id <> 0 AND s.program_name = N'dpone-target'",
                  )
              ).recordset?.[0]?.n,
            ),
          { timeout: 10_000 },
        )
        .toBeGreaterThan(0);
      expect(raised).toBe(false);
      release();
      await writing;
      expect(await raising).toMatchObject({ installed: true, epoch: 2, status: 'committed' });
      expect(await next.queryFence(op)).toMatchObject({ status: 'committed', epoch: 2, committedEpoch: 1 });
      expect(await count(TABLE)).toBe(before + 2);
    });

    it('a zombie whose epoch was raised before its guard is FENCED and writes nothing', async () => {
      const op = opId();
      const before = await count(TABLE);
      await using zombie = await open(TABLE);
      await using next = await open(TABLE);
      await zombie.prepareFence(ref(op, 1), CREATE);
      await next.prepareFence(ref(op, 2), CREATE);
      await expect(zombie.mutate(request(op, 1))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
      expect(await next.queryFence(op)).toMatchObject({ status: 'not-committed', epoch: 2 });
      expect(await count(TABLE)).toBe(before);
    });
  });
}
