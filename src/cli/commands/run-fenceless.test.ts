import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../contracts/errors.ts';
import { deriveOperationId } from '../../contracts/identity.ts';
import { changeFile, tableNames } from '../embedded-files.test-support.ts';
import { readWorkloadFile } from '../workload-file.ts';
import { EXPECTED_ROWS, dpone, exampleCopy, targetCounts } from './example-workload.test-support.ts';

/**
 * A target written without a fence (`target.fence: none`, capability none), through the real
 * CLI: the run that wrote cannot prove it, so it ends COMMIT_UNKNOWN instead of exit 0; a second
 * run never replays the write; an operator settles it with recovery inspect/plan/apply and
 * evidence of their own, after which a run completes without writing the target again.
 */
const IDENTITY = { DPONE_PLATFORM_IDENTITY: 'platform:oncall@example.com' };

function fenceless() {
  const example = exampleCopy();
  const workload = example.variant('fenceless.yaml', (text) =>
    text
      .replace('  table: events\n', '  table: events\n  fence: none\n')
      .replace('lease_ttl_ms: 30000', 'lease_ttl_ms: 1'),
  );
  const run = () => dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
  return { example, workload, run };
}

describe('capability none: plain writes end COMMIT_UNKNOWN and only an operator settles them', () => {
  it('writes once, never exits 0 without proof, never replays, and recovery settles it', async () => {
    const { example, workload, run } = fenceless();
    const first = await run();
    expect(first.exitCode, first.stderr).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_UNKNOWN);
    expect(first.stderr).toContain('no fence capability');
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
    // A real configuration without a fence: no fence table was made on the target.
    expect(tableNames(example.targetPath())).toEqual(['events']);

    const second = await run();
    expect(second.exitCode, second.stderr).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_UNKNOWN);
    expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);

    const operationId = deriveOperationId((await readWorkloadFile(workload)).identity);
    const recovery = (command: string, extra: string[] = [], env: Record<string, string> = {}) =>
      dpone(
        [
          'recovery',
          'target-commit',
          command,
          '--operation-id',
          operationId,
          '--route',
          workload,
          '--json',
          ...extra,
        ],
        { cwd: example.dir, env },
      );
    const inspected = await recovery('inspect');
    expect(inspected.exitCode, inspected.stderr).toBe(0);
    const view = JSON.parse(inspected.stdout) as { entry: { state: string; version: number } };
    expect(view.entry.state).toBe('COMMIT_UNKNOWN');
    const plan = JSON.parse((await recovery('plan')).stdout) as {
      actions: { name: string; legal: boolean }[];
    };
    // The fence cannot prove anything: resolving needs the operator's evidence.
    expect(plan.actions.find((a) => a.name === 'resolve-unknown')?.legal).toBe(false);

    const apply = (extra: string[]) =>
      recovery(
        'apply',
        [
          '--action',
          'resolve-unknown',
          '--expected-version',
          String(view.entry.version),
          '--reason',
          'rows counted in the target',
          ...extra,
        ],
        IDENTITY,
      );
    const bare = await apply(['--outcome', 'committed']);
    expect(bare.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
    expect(bare.stderr).toContain('--evidence-ref');
    const settled = await apply(['--outcome', 'committed', '--evidence-ref', 'TICKET-42']);
    expect(settled.exitCode, settled.stderr).toBe(0);
    expect(JSON.parse((await recovery('inspect')).stdout).entry.state).toBe('TARGET_COMMITTED');

    const completed = await run();
    expect(completed.exitCode, completed.stderr).toBe(0);
    expect(JSON.parse(completed.stdout)).toMatchObject({ mutated: false });
    expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);
  });

  it('an operator who finds the write missing sends it back to PREPARED: the next run writes once', async () => {
    const { example, workload, run } = fenceless();
    expect((await run()).exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_UNKNOWN);
    // The operator's evidence: the rows are not there (here: removed by hand).
    changeFile(example.targetPath(), 'DELETE FROM events');
    const operationId = deriveOperationId((await readWorkloadFile(workload)).identity);
    const base = ['recovery', 'target-commit'];
    const inspected = await dpone(
      [...base, 'inspect', '--operation-id', operationId, '--route', workload, '--json'],
      { cwd: example.dir },
    );
    const version = (JSON.parse(inspected.stdout) as { entry: { version: number } }).entry.version;
    const applied = await dpone(
      [
        ...base,
        'apply',
        '--operation-id',
        operationId,
        '--route',
        workload,
        '--action',
        'resolve-unknown',
        '--expected-version',
        String(version),
        '--reason',
        'target holds none of the rows',
        '--outcome',
        'not-committed',
        '--evidence-ref',
        'TICKET-43',
      ],
      { cwd: example.dir, env: IDENTITY },
    );
    expect(applied.exitCode, applied.stderr).toBe(0);
    // The retry writes again and, without a fence, again cannot prove it: stopped, rows once.
    expect((await run()).exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_UNKNOWN);
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });
});
