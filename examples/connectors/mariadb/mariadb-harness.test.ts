import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_FAULTS, rowStreamOf } from 'dpone-cert';
import type { CellTable } from 'dpone-cert/testing';
import connector from './mariadb-connector.ts';
import { mariadbAddress, quote, withSession } from './mariadb-database.ts';
import {
  PASSWORD_ENV,
  cellDatabase,
  harnessServer,
  mariadbHarness,
  stopHarnessServer,
} from './mariadb-harness.ts';
import { skipReason } from './fixtures/mariadb-kit-factory.ts';

/** The harness part on a real server: one mariadbd per run, a database per cell, the audit. */

const skip = skipReason();
afterAll(stopHarnessServer, 60_000);

const TABLE: CellTable = {
  name: 'events',
  columns: [
    { name: 'id', type: 'integer' },
    { name: 'day', type: 'text' },
    { name: 'big', type: 'integer' },
    { name: 'label', type: 'text' },
  ],
  naturalKey: ['id'],
  partition: { column: 'day', value: '2026-01-01' },
};
const COLUMNS = TABLE.columns.map((column) => column.name);
/** Values a careless target changes: 2^63-1, an NFD accent, an emoji, a trailing space, a 4 KiB text. */
const ROWS = [
  ['1', '2026-01-01', '9223372036854775807', 'Cafe\u0301 🚀'],
  ['2', '2026-01-01', '-9007199254740993', 'trailing space '],
  ['3', '2026-01-01', null, 'x'.repeat(4096)],
];

const databases = async (): Promise<string[]> => {
  const server = await harnessServer();
  return withSession(server.address('mysql'), async (session) =>
    (await session.runValues('SHOW DATABASES')).rows.map((row) => String(Object.values(row)[0])),
  );
};

/** A cell's target prepared in a fresh folder; `await using` drops its database when the test ends. */
const prepareCell = () => mariadbHarness.target.prepare(mkdtempSync(join(tmpdir(), 'cell-')), TABLE);

async function load(
  endpoint: { url: string; table: string },
  password: string,
  epoch: number,
  holder: string,
) {
  const target = await connector.target!.open(
    {
      ...endpoint,
      password,
      columns: COLUMNS,
      naturalKey: ['id'],
      partitionColumn: 'day',
      baseDir: tmpdir(),
      field: 'target',
    },
    { faults: NO_FAULTS, readOnly: false },
  );
  const fence = { operationId: 'op-1', epoch, intentDigest: `sha256:${'1'.repeat(64)}`, holder };
  try {
    await target.prepareFence(fence, { create: true });
    return await target.mutate({
      strategy: 'replace-partition',
      partitionColumn: 'day',
      partitionValue: '2026-01-01',
      fence,
      rows: rowStreamOf(COLUMNS, ROWS),
    });
  } finally {
    await target.close();
  }
}

describe.skipIf(skip !== undefined)('the MariaDB harness part on a throw-away mariadbd', () => {
  it('starts one server per run and gives each cell its own database, named after its folder, dropped on dispose', async () => {
    const [first, second] = [mkdtempSync(join(tmpdir(), 'cell-')), mkdtempSync(join(tmpdir(), 'cell-'))];
    const a = await mariadbHarness.target.prepare(first!, TABLE);
    const b = await mariadbHarness.target.prepare(second!, TABLE);
    expect(await harnessServer()).toBe(await harnessServer());
    expect(a.endpoint.url).not.toBe(b.endpoint.url);
    expect(await databases()).toEqual(expect.arrayContaining([cellDatabase(first!), cellDatabase(second!)]));
    await a[Symbol.asyncDispose]();
    await a[Symbol.asyncDispose]();
    expect(await databases()).not.toContain(cellDatabase(first!));
    expect(await databases()).toContain(cellDatabase(second!));
    await b[Symbol.asyncDispose]();
    expect(await databases()).not.toContain(cellDatabase(second!));
  }, 120_000);

  it('names the password by variable only: the URL carries none, env holds it, and the connector refuses one in the URL', async () => {
    await using target = await prepareCell();
    expect(target.endpoint.password_env).toBe(PASSWORD_ENV);
    const password = target.env![PASSWORD_ENV]!;
    expect(password.length).toBeGreaterThan(16);
    expect(target.endpoint.url).not.toContain(password);
    const withPassword = target.endpoint.url.replace('dpone@', `dpone:${password}@`);
    expect(() => mariadbAddress(withPassword, 'target')).toThrow(/must not carry a password/);
    // The workers' calls are bounded (a proxied cell's black hole ends them), and the server
    // the harness proxies is the one the URL names.
    expect(mariadbAddress(target.endpoint.url, 'target')).toMatchObject({
      host: target.server!.host,
      port: target.server!.port,
      connectTimeoutMs: 8000,
      queryTimeoutMs: 15000,
    });
    expect(mariadbHarness.target.network).toBe(true);
  }, 120_000);

  it('reads back every value exactly (64-bit, NFD, emoji, trailing space, 4 KiB) and audits each insert with its transaction, a replaced one too', async () => {
    await using target = await prepareCell();
    await target.installAudit();
    const password = target.env![PASSWORD_ENV]!;
    expect(await load(target.endpoint, password, 1, 'h1')).toMatchObject({ applied: true, rowsWritten: 3 });
    const once = await target.read();
    expect(once.rows).toEqual(
      ROWS.map(([id, day, big, label]) => ({
        id: BigInt(id!),
        day,
        big: big === null ? null : BigInt(big!),
        label,
      })),
    );
    expect(once.markerKind).toBe('transaction');
    expect(new Set(once.inserts.map((insert) => insert.marker)).size).toBe(1);
    // A second mutation outside the fence (the harness's own write, as a zombie's would be):
    // the replaced rows stay in the audit with their inserting transaction.
    const address = mariadbAddress(target.endpoint.url, 'target', password);
    await withSession(address, async (session) => {
      await session.runValues('START TRANSACTION');
      await session.runValues(`DELETE FROM ${quote('events')} WHERE day = '2026-01-01'`);
      await session.runValues(`INSERT INTO ${quote('events')} (id, day) VALUES (1, '2026-01-01')`);
      await session.runValues('COMMIT');
    });
    const twice = await target.read();
    expect(twice.rows).toHaveLength(1);
    expect(twice.inserts).toHaveLength(4);
    expect(new Set(twice.inserts.map((insert) => insert.marker)).size).toBe(2);
    // In commit order: the first transaction's three inserts, then the second's.
    expect(twice.inserts.slice(0, 3).map((insert) => insert.marker)).toEqual(
      once.inserts.map((insert) => insert.marker),
    );
  }, 120_000);

  it('reads, drops and renames the fence with its own connection', async () => {
    await using target = await prepareCell();
    await target.installAudit();
    await load(target.endpoint, target.env![PASSWORD_ENV]!, 1, 'h1');
    const read = () => target.fence!.read('op-1');
    expect((await read()).locations).toEqual([
      { where: '_dpone_fence', table: true, status: 'committed', epoch: 1 },
      { where: '_dpone_fence_lost', table: false, status: null, epoch: null },
    ]);
    await target.fence!.rename!();
    expect((await read()).locations.map((location) => location.table)).toEqual([false, true]);
    await target.fence!.drop!();
    expect((await read()).locations.map((location) => location.status)).toEqual([null, 'committed']);
  }, 120_000);

  it('stops the server and removes its folder on dispose', async () => {
    const server = await harnessServer();
    expect(existsSync(server.dir)).toBe(true);
    await stopHarnessServer();
    expect(existsSync(server.dir)).toBe(false);
    await expect(withSession(server.address('mysql'), async () => undefined)).rejects.toThrow(
      /could not be reached/,
    );
  }, 120_000);

  it('leaves no server behind when the process that started it is killed (its watchdog stops it)', async () => {
    const script =
      "import { MariadbServer } from './examples/connectors/mariadb/mariadb-server.ts';" +
      'const s = await MariadbServer.start(); console.log(s.dir + " " + s.port); setInterval(() => {}, 1000);';
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '..', '..', '..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = await new Promise<string>((resolve) =>
      child.stdout!.once('data', (data) => resolve(String(data))),
    );
    const [dir, port] = line.trim().split(' ');
    expect(existsSync(dir!)).toBe(true);
    child.kill('SIGKILL');
    const deadline = Date.now() + 30_000;
    while (existsSync(dir!) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(dir!)).toBe(false);
    await expect(
      withSession(
        { host: '127.0.0.1', port: Number(port), user: 'dpone', database: 'mysql' },
        async () => undefined,
      ),
    ).rejects.toThrow(/could not be reached/);
  }, 120_000);
});
