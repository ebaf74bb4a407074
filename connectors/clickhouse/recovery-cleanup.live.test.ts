import { describe, expect, it } from 'vitest';
import { contractProblems } from '../../harness/evidence/contract-schemas.ts';
import { liveClickHouse, unverified } from './fixtures/clickhouse-live.ts';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import { dpone, exampleCopy } from '../../src/cli/commands/example-workload.test-support.ts';

/**
 * Issue 29 row 5: tombstones of an operation that never commits pile up (a refused workload, once
 * fixed, has another operation id). `inspect` lists them; `cleanup` (audited, platform identity)
 * removes them for an operation whose journal entry is FAILED_PRE_COMMIT or absent, and refuses any
 * other state.
 */
const live = liveClickHouse('clean');

function refusedWorkload(db: string) {
  const example = exampleCopy();
  const url = live.server().url(db, 'default');
  const workload = example.variant('clickhouse.yaml', (text) =>
    text
      // The example's embedded route into this server: its route line and its target's URL.
      .replace(/^route: .*$/m, 'route: clickhouse')
      .replace(/url: '[^']*:data\/target\.db'/, `url: '${url}'`),
  );
  return { ...example, workload };
}

const leftovers = async (db: string) =>
  Number(
    (
      await live
        .server()
        .exec(
          `SELECT count() FROM system.tables WHERE database = '${db}' AND startsWith(name, '_dpone_stage_')`,
        )
    ).trim(),
  );

describe.skipIf(unverified)('dpone recovery target-commit cleanup (live ClickHouse)', () => {
  it('refused runs leave tombstones; inspect lists them; cleanup removes them, audited; other states are refused', async () => {
    const db = await live.freshDb();
    // A column no example value fits: every run is refused (33) before anything is attached.
    await live
      .server()
      .exec(
        `CREATE TABLE ${db}.events (id String, day String, amount Enum8('none' = 1), region Nullable(String), ` +
          '_dpone_op String, _dpone_epoch UInt64) ENGINE = MergeTree PARTITION BY day ORDER BY id',
      );
    const example = refusedWorkload(db);
    for (let i = 0; i < 2; i++) {
      const refused = await dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir });
      expect(refused.exitCode, refused.stderr).toBe(EXIT_CODES.DPONE_DATA_REJECTED);
      expect(refused.stderr).toContain('column amount');
    }
    const id = JSON.parse(
      (await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir })).stdout,
    ).operation_id as string;
    expect(await leftovers(db)).toBeGreaterThan(0);
    const inspect = await dpone(
      ['recovery', 'target-commit', 'inspect', '--operation-id', id, '--route', example.workload, '--json'],
      { cwd: example.dir },
    );
    expect(inspect.exitCode, inspect.stderr).toBe(0);
    const view = JSON.parse(inspect.stdout) as { entry: { state: string }; leftovers: { kind: string }[] };
    expect(contractProblems('recovery-inspect', view)).toEqual([]);
    expect(view.leftovers.length).toBe(await leftovers(db));
    expect(view.leftovers.every((l) => l.kind === 'tombstone')).toBe(true);

    const cleanup = (env: Record<string, string>) =>
      dpone(
        [
          'recovery',
          'target-commit',
          'cleanup',
          '--operation-id',
          id,
          '--route',
          example.workload,
          '--reason',
          'workload fixed',
          '--json',
        ],
        { cwd: example.dir, env },
      );
    const anonymous = await cleanup({ DPONE_PLATFORM_IDENTITY: '' });
    expect(anonymous.exitCode).toBe(EXIT_CODES.DPONE_UNAUTHORIZED);
    const identity = { DPONE_PLATFORM_IDENTITY: 'platform:ops@example.com' };
    // A refused run hands its operation back: FAILED_PRE_COMMIT, lease released.
    expect(view.entry.state).toBe('FAILED_PRE_COMMIT');
    const done = await cleanup(identity);
    expect(done.exitCode, done.stderr).toBe(0);
    const result = JSON.parse(done.stdout) as { removed: string[]; audit: { actor: string } };
    expect(contractProblems('recovery-cleanup', result)).toEqual([]);
    expect(result.removed.length).toBeGreaterThan(0);
    expect(result.audit.actor).toBe('platform:ops@example.com');
    expect(await leftovers(db)).toBe(0);
    const audited = await live
      .server()
      .exec(`SELECT count() FROM ${db}._dpone_fence WHERE operation_id = '${id}' AND kind = 'cleanup'`);
    expect(audited.trim()).toBe('1');
    // The fixed workload (the column fits now) still runs: the cleanup's epoch is moved above.
    await live.server().exec(`ALTER TABLE ${db}.events MODIFY COLUMN amount String`);
    const fixed = await dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir });
    expect(fixed.exitCode, fixed.stderr).toBe(0);
    // Now COMPLETE: cleanup refuses (its leftovers, if any, are the run's own business).
    const late = await cleanup(identity);
    expect(late.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_ILLEGAL_TRANSITION);
    expect(late.stderr).toContain('COMPLETE');
  });
});
