import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFileRow, readFileRows } from '../embedded-files.test-support.ts';
import type { ExampleCopy } from './example-workload.test-support.ts';
import {
  EXPECTED_ROWS,
  dpone,
  exampleCopy,
  parkedRun,
  targetCounts,
} from './example-workload.test-support.ts';

function journalState(example: ExampleCopy): { state: string; lease: unknown; reasons: string[] } {
  const path = join(example.dir, 'data/state/journal.db');
  const entry = readFileRow(path, 'SELECT state, lease_holder FROM dpone_commit_journal') as {
    state: string;
    lease_holder: unknown;
  };
  const reasons = readFileRows(
    path,
    'SELECT evidence FROM dpone_commit_journal_history ORDER BY version',
  ).map((row) => (JSON.parse(String(row.evidence)) as { reason: string }).reason);
  return { state: entry.state, lease: entry.lease_holder, reasons };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

/** Rows in the example's target, 0 while the target file does not exist yet. */
function targetRows(example: ExampleCopy): number {
  return existsSync(example.targetPath()) ? targetCounts(example.targetPath()).rows : 0;
}

/** A short lease, so the crash-like case below can be retried in the test's time. */
function shortLease(example: ExampleCopy): string {
  return example.variant('short.yaml', (text) => text.replace('lease_ttl_ms: 30000', 'lease_ttl_ms: 300'));
}

describe('dpone run on SIGTERM / SIGINT (signals sent to the real process)', () => {
  it.each([
    ['SIGTERM', 'fence.prepare:before', 'PREPARING'],
    ['SIGINT', 'source.read:before', 'PREPARED'],
    ['SIGTERM', 'cas:PREPARED->COMMITTING:before', 'PREPARED'],
  ] as const)(
    '%s at %s: exit 130 DPONE_INTERRUPTED, nothing written, the lease handed back',
    async (signal, point, state) => {
      const example = exampleCopy();
      const { child, parked } = parkedRun(example, point, { trace: join(example.dir, 'trace.txt') });
      await parked;
      child.kill(signal);
      await settle(); // the signal is handled before the parked process is released
      child.kill('SIGUSR2');
      const result = await child;
      expect(result.exitCode, result.stderr).toBe(130);
      const error = JSON.parse(result.stderr.split('\n').find((l) => l.startsWith('{'))!).error;
      expect(error).toMatchObject({ code: 'DPONE_INTERRUPTED', state });
      expect(error.message).toContain(`stopped by ${signal} at ${point}`);
      expect(journalState(example)).toMatchObject({ state: 'FAILED_PRE_COMMIT', lease: null });
      expect(targetRows(example)).toBe(0);
      // Handed back: the retry starts at once (no CAS conflict) and writes once.
      const retry = await dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir });
      expect(retry.exitCode, retry.stderr).toBe(0);
      expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);
    },
  );

  it('SIGTERM inside the commit: says so in one line, finishes until the fence answered, exit 0, one write', async () => {
    const example = exampleCopy();
    const { child, parked } = parkedRun(example, 'target.commit:before', {
      trace: join(example.dir, 'trace.txt'),
    });
    await parked;
    child.kill('SIGTERM');
    await settle();
    child.kill('SIGUSR2');
    const result = await child;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^dpone: SIGTERM received in COMMITTING: carrying on/m);
    expect(JSON.parse(result.stdout)).toMatchObject({
      status: 'committed',
      state: 'COMPLETE',
      mutated: true,
    });
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('a second signal exits at once (130) like a crash; the retry reconciles with the fence, one write', async () => {
    const example = exampleCopy();
    const workload = shortLease(example);
    const { child, parked } = parkedRun(example, 'target.commit:after', {
      workload,
      trace: join(example.dir, 'trace.txt'),
    });
    await parked;
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGTERM');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toMatch(/second SIGTERM: exiting now/);
    expect(journalState(example).state).toBe('COMMITTING');
    await new Promise((resolve) => setTimeout(resolve, 400)); // the dead run's lease expires
    const retry = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(JSON.parse(retry.stdout)).toMatchObject({ status: 'completed-after-recovery', mutated: false });
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });
});
