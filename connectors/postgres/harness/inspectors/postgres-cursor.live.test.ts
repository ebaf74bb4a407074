import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLocalBinaries } from '../env/local-binaries.ts';
import { LocalPostgresCluster } from '../env/postgres-cluster.ts';
import type { InspectorConnection } from './postgres-inspector.ts';
import { eachCursorRow, withInspectorClient } from './postgres-inspector.ts';
import { postgresSourceRows } from './postgres-source-rows.ts';

const binaries = findLocalBinaries();
const missing = binaries.postgresBin === undefined || binaries.postgresBin === null;
// In CI the servers are provisioned, so a missing binary is a failure; elsewhere it is UNVERIFIED.
const unverified = missing && process.env.CI !== 'true';
if (unverified) console.warn('UNVERIFIED postgres cursor reads: no PostgreSQL binaries');

// More rows than one fetch (5,000), and not a multiple of it: the last, short batch ends the read.
const ROWS = 12_345;

describe.skipIf(unverified)("the inspector's cursor reads (live)", () => {
  let cluster: LocalPostgresCluster;
  let connection: InspectorConnection;
  beforeAll(async () => {
    cluster = await LocalPostgresCluster.start({ bin: binaries.postgresBin! });
    connection = {
      host: '127.0.0.1',
      port: cluster.port,
      user: cluster.user,
      password: cluster.password,
      database: cluster.adminDatabase,
    };
    await withInspectorClient(connection, 'setup', async (client) => {
      await client.query('CREATE TABLE src (id BIGINT, day DATE, label TEXT)');
      await client.query(
        `INSERT INTO src SELECT g, CASE WHEN g % 3 = 0 THEN DATE '2026-07-06' ELSE DATE '2026-07-05' END, 'l' || g FROM generate_series(1, ${ROWS}) g`,
      );
    });
  }, 60_000);
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  });

  it('visits every row once across fetches, with its parameters, as the whole read returns them', async () => {
    const seen: string[] = [];
    const count = await withInspectorClient(connection, 'rows', async (client) => {
      await client.query('BEGIN');
      const n = await eachCursorRow(
        client,
        'SELECT id::text AS id FROM src WHERE day = $1 ORDER BY src.id',
        ['2026-07-05'],
        (row) => seen.push(String(row.id)),
      );
      await client.query('COMMIT');
      return n;
    });
    const expected = Array.from({ length: ROWS }, (_, i) => i + 1)
      .filter((id) => id % 3 !== 0)
      .map(String);
    expect(count).toBe(expected.length);
    expect(seen).toEqual(expected);
  });

  it("gives a source's rows one at a time exactly as its whole read does", async () => {
    const source = postgresSourceRows({
      connection,
      schema: 'public',
      table: 'src',
      columns: ['id', 'day', 'label'],
      partition: { column: 'day', value: '2026-07-06' },
    });
    const streamed: unknown[] = [];
    const count = await source.each!((row) => streamed.push(row));
    const whole = await source.read();
    expect(count).toBe(Math.floor(ROWS / 3));
    expect(streamed).toEqual(whole);
  });
});
