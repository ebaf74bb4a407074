import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseTarget } from '../../clickhouse-target.ts';
import { ERROR_CODES } from '../../../../src/contracts/errors.ts';
import type { LoadStrategy } from '../../../../src/ports/connector.ts';
import { ClickHouseServer, findClickHouseServer } from '../env/clickhouse-server.ts';
import type { ClickHouseCellWorld } from '../clickhouse-cell.ts';
import { buildClickHouseCellWorld } from '../clickhouse-cell.ts';
import { ClickHouseInspector } from './clickhouse-inspector.ts';
import { embeddedSource } from './embedded-source.test-support.ts';
import type { SourceRows } from '../../../../harness/inspectors/source-rows.ts';
import { rowStreamOf, rowsFromObjects } from '../../../../src/ports/row-stream.ts';
import { ONE_LANDING_OF_THREE } from '../../../../harness/inspectors/fixtures/one-landing.ts';

const binary = findClickHouseServer();
const unverified = binary === null && process.env.CI !== 'true';
if (unverified) console.warn('UNVERIFIED clickhouse inspector: no clickhouse-server binary found');

const COLUMNS = ['id', 'day', 'amount'];
const DAY = '2026-01-01';
let server: ClickHouseServer;
let dir: string;
let source: SourceRows;

/** Three rows of DAY and one of another day in the embedded engine's source file. */
const seedSource = (cellDir: string) =>
  embeddedSource(
    cellDir,
    [
      { name: 'id', type: 'integer' },
      { name: 'day', type: 'text' },
      { name: 'amount', type: 'text' },
    ],
    [
      [1, DAY, '10.5'],
      [2, DAY, '20'],
      [3, DAY, null],
      [4, '2026-01-02', '1'],
    ],
    { column: 'day', value: DAY },
  );

async function world(seedTargetRows?: Record<string, string | null>[]): Promise<ClickHouseCellWorld> {
  return buildClickHouseCellWorld(join(dir, `cell-${Math.random()}`), {
    endpoint: server.admin,
    columns: COLUMNS,
    naturalKey: ['id'],
    partition: { column: 'day', value: DAY },
    source,
    ...(seedTargetRows ? { seedTargetRows } : {}),
  });
}

const ROWS = [
  { id: 1, day: DAY, amount: 10.5 },
  { id: 2, day: DAY, amount: 20 },
  { id: 3, day: DAY, amount: null },
];

/** Lands the source rows through the real connector under `epoch` (a fresh operation id each call). */
async function land(
  cell: ClickHouseCellWorld,
  operationId: string,
  strategy: LoadStrategy = 'append',
): Promise<void> {
  await using target = await ClickHouseTarget.open({
    url: cell.target.url,
    table: cell.target.table,
    columns: COLUMNS,
    naturalKey: ['id'],
    partitionColumn: 'day',
  });
  const fence = { operationId, epoch: 1, intentDigest: `sha256:${'1'.repeat(64)}`, holder: 'h1' };
  await target.prepareFence(fence, { create: true });
  await target.mutate({
    fence,
    strategy,
    partitionColumn: 'day',
    partitionValue: DAY,
    rows: rowStreamOf(COLUMNS, rowsFromObjects(COLUMNS, ROWS)),
  });
}

describe.skipIf(unverified)(
  'clickhouse inspector (live): mutations from the server’s own part records',
  () => {
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'dpone-chi-'));
      source = await seedSource(join(dir, 'source'));
      server = await ClickHouseServer.start({ binary: binary ?? '' });
    }, 40_000);
    afterAll(async () => {
      await server?.[Symbol.asyncDispose]();
      rmSync(dir, { recursive: true, force: true });
    });

    it('one landing: one mutation, no duplicates, parity with the source', async () => {
      const cell = await world();
      await land(cell, 'op-a');
      const snapshot = await cell.inspector.snapshot();
      expect(snapshot).toMatchObject(ONE_LANDING_OF_THREE);
      expect(snapshot.audit).toMatchObject({ marker_kind: 'server-part', audited_inserts: 3 });
      // The target alone reads to the digest and count of the same snapshot.
      expect(await cell.inspector.targetDigest()).toEqual({ digest: snapshot.target_digest, rows: 3 });
      await cell.drop();
    });

    it('a replayed append: two mutations and the duplicated keys', async () => {
      const cell = await world();
      await land(cell, 'op-a');
      await land(cell, 'op-b'); // as if the fence had been forgotten: a second generation lands
      expect(await cell.inspector.snapshot()).toMatchObject({
        mutations: 2,
        duplicate_rows: 3,
        row_parity: false,
      });
      await cell.drop();
    });

    it('a replayed replace: two mutations although the rows look right (no duplicates, parity holds)', async () => {
      const cell = await world([{ id: '9', day: DAY, amount: 'legacy' }]);
      await land(cell, 'op-a', 'replace-partition');
      expect(await cell.inspector.snapshot()).toMatchObject({ mutations: 1, row_parity: true });
      await land(cell, 'op-b', 'replace-partition');
      expect(await cell.inspector.snapshot()).toMatchObject({
        mutations: 2,
        duplicate_rows: 0,
        row_parity: true,
      });
      await cell.drop();
    });

    it('rows a worker never wrote (seeded before the audit) are not mutations; a direct insert is', async () => {
      const cell = await world([{ id: '9', day: '2026-01-02', amount: null }]);
      expect(await cell.inspector.snapshot()).toMatchObject({ mutations: 0, row_count: 1 });
      await server.exec(
        `INSERT INTO ${cell.database}.events (id, day, amount) VALUES ('1', '${DAY}', '10.5')`,
      );
      expect(await cell.inspector.snapshot()).toMatchObject({ mutations: 1, row_count: 2 });
      await cell.drop();
    });

    it('a landing whose part_log event died with a SIGKILLed server is still counted (from system.parts)', async () => {
      const cell = await world();
      const landing = land(cell, 'op-a');
      await landing;
      await server.kill('SIGKILL'); // within the 100 ms flush interval, the NEW_PART event may be lost
      await server.restart();
      expect(await cell.inspector.snapshot()).toMatchObject({
        mutations: 1,
        duplicate_rows: 0,
        row_parity: true,
      });
      await cell.drop();
    }, 60_000);

    it('a server that does not log parts is an environment the harness cannot certify on', async () => {
      await using bare = await ClickHouseServer.start({ binary: binary ?? '', partLog: false });
      await bare.exec('CREATE DATABASE c');
      const inspector = new ClickHouseInspector({
        endpoint: bare.admin,
        database: 'c',
        targetTable: 'events',
        columns: COLUMNS,
        naturalKey: ['id'],
        partition: { column: 'day', value: DAY },
        source,
      });
      await expect(inspector.installAudit()).rejects.toMatchObject({
        code: ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      });
    }, 60_000);
  },
);
