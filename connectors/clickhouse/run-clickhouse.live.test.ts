import { describe, expect, it } from 'vitest';
import { CLICKHOUSE_USERS } from './harness/env/clickhouse-server.ts';
import { liveClickHouse, unverified } from './fixtures/clickhouse-live.ts';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import { EXPECTED_ROWS, dpone, exampleCopy } from '../../src/cli/commands/example-workload.test-support.ts';
import { EMBEDDED_ENGINE } from '../../harness/routes/route-registry.ts';

/**
 * `dpone run` on the ClickHouse route as a user runs it: the example workload's embedded source into
 * a real ClickHouse (18.16 here). Issue 12 rows 4 and 6 through the CLI: a cause a retry cannot fix
 * has its own exit code, and the lease is released, so a fixed retry goes ahead at once.
 */
const live = liveClickHouse('cli');

function clickhouseWorkload(database: string, extra: { user?: string; passwordEnv?: string } = {}) {
  const example = exampleCopy();
  const url = live.server().url(database, extra.user ?? 'default');
  const password = extra.passwordEnv ? `\n  password_env: ${extra.passwordEnv}` : '';
  const workload = example.variant('clickhouse.yaml', (text) =>
    text
      .replace(`route: ${EMBEDDED_ENGINE}`, 'route: clickhouse')
      .replace(`url: '${EMBEDDED_ENGINE}:data/target.db'`, `url: '${url}'${password}`),
  );
  return { ...example, workload };
}

const run = (example: { dir: string; workload: string }, env: Record<string, string> = {}) =>
  dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir, env });

describe.skipIf(unverified)('dpone run, the embedded source into ClickHouse (live CLI)', () => {
  it('loads once; the retry is already-complete; the run says protection legacy', async () => {
    const db = await live.freshDb();
    const example = clickhouseWorkload(db);
    const first = await run(example);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({
      status: 'committed',
      rows_written: EXPECTED_ROWS,
      protection: 'legacy',
      protection_reason: expect.stringMatching(/no trust policy/),
    });
    const second = await run(example);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'already-complete', mutated: false });
    expect(await live.count(db)).toBe(EXPECTED_ROWS);
  });

  it('a missing database exits 32, and once it exists the next run goes ahead at once (no lease left)', async () => {
    const example = clickhouseWorkload(`missing_${process.pid}`);
    const first = await run(example);
    expect(first.exitCode).toBe(EXIT_CODES.DPONE_OBJECT_NOT_FOUND);
    expect(first.stderr).toContain('DPONE_OBJECT_NOT_FOUND');
    await live.server().exec(`CREATE DATABASE missing_${process.pid}`);
    const fixed = await run(example);
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    expect(await live.count(`missing_${process.pid}`)).toBe(EXPECTED_ROWS);
  });

  it('a wrong password exits 30 without showing it; the retry is refused the same way, not by a held lease', async () => {
    const db = await live.freshDb();
    const example = clickhouseWorkload(db, { user: CLICKHOUSE_USERS.writer, passwordEnv: 'CH_PW' });
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await run(example, { CH_PW: 'not-the-password-991' });
      expect(result.exitCode).toBe(EXIT_CODES.DPONE_AUTHENTICATION_FAILED);
      expect(result.stderr + result.stdout).not.toContain('not-the-password-991');
    }
    const right = await run(example, { CH_PW: live.server().password });
    expect(right.exitCode, right.stderr).toBe(0);
  });

  it('a ReplacingMergeTree target exits 2 and nothing is written', async () => {
    const db = await live.freshDb();
    await live
      .server()
      .exec(
        `CREATE TABLE ${db}.events (id String, day String, amount Nullable(String), region Nullable(String), ` +
          '_dpone_op String, _dpone_epoch UInt64) ENGINE = ReplacingMergeTree PARTITION BY day ORDER BY id',
      );
    const result = await run(clickhouseWorkload(db));
    expect(result.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
    expect(result.stderr).toContain('ReplacingMergeTree');
    expect(await live.count(db)).toBe(0);
  });

  it('a value the target cannot take exits 33 every time (never "retry"), nothing attached', async () => {
    const db = await live.freshDb();
    await live
      .server()
      .exec(
        `CREATE TABLE ${db}.events (id String, day String, amount Decimal(9, 2), region DateTime, ` +
          '_dpone_op String, _dpone_epoch UInt64) ENGINE = MergeTree PARTITION BY day ORDER BY id',
      );
    const example = clickhouseWorkload(db);
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await run(example);
      expect(result.exitCode, result.stderr).toBe(EXIT_CODES.DPONE_DATA_REJECTED);
    }
    expect(await live.count(db)).toBe(0);
  });

  it('recovery inspect reads the fence on a read-only connection: it creates nothing, even where the fence is gone', async () => {
    const db = await live.freshDb();
    const example = clickhouseWorkload(db);
    const identity = JSON.parse(
      (await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir })).stdout,
    );
    const tables = async () =>
      (
        await live.server().exec(`SELECT name FROM system.tables WHERE database = '${db}' ORDER BY name`)
      ).trim();
    const inspect = async () =>
      JSON.parse(
        (
          await dpone(
            [
              'recovery',
              'target-commit',
              'inspect',
              '--operation-id',
              identity.operation_id,
              '--route',
              example.workload,
              '--json',
            ],
            { cwd: example.dir },
          )
        ).stdout,
      );
    expect((await run(example)).exitCode).toBe(0);
    expect(await inspect()).toMatchObject({ fence: { status: 'committed', rows_written: EXPECTED_ROWS } });
    // Opening the target connector would create the fence table again; the reader must not.
    await live.server().exec(`DROP TABLE ${db}._dpone_fence`);
    const before = await tables();
    expect(await inspect()).toMatchObject({ fence: { status: 'unknown', epoch: null } });
    expect(await tables()).toBe(before);
    expect(before).not.toContain('_dpone_fence');
  });
});
