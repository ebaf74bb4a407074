import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../contracts/errors.ts';
import type { ShadowReport } from '../../core/shadow-report.ts';
import { lockFile, readFileRows } from '../embedded-files.test-support.ts';
import { embeddedJournalUrl } from '../embedded-journal.test-support.ts';
import type { ExampleCopy } from './example-workload.test-support.ts';
import {
  EXPECTED_ROWS,
  dpone,
  exampleCopy,
  parkedRun,
  runJson,
  targetCounts,
} from './example-workload.test-support.ts';

/**
 * Shadow mode through the real CLI: the legacy write unchanged in effect and exit code, every
 * attempt recorded in the (embedded file) journal with what enforcement would have decided, a journal that
 * cannot be reached never failing the write, and `dpone shadow report` counting what the target
 * shows (a retried append: twice the rows, one duplicate).
 */
const ENV = { DPONE_POLICY: '', DPONE_DEPLOYMENT_POLICY: '' };

function policy(example: ExampleCopy, mode: string, extra = ''): void {
  writeFileSync(join(example.dir, 'dpone-deployment.yaml'), `deployment: test\ndefault: ${mode}\n${extra}`);
}

const run = (example: ExampleCopy, workload = example.workload, extra: readonly string[] = []) =>
  runJson(example, workload, extra, ENV);

async function report(example: ExampleCopy, extra: string[] = []): Promise<ShadowReport> {
  const result = await dpone(['shadow', 'report', '--workload', example.workload, '--json', ...extra], {
    cwd: example.dir,
    env: ENV,
  });
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as ShadowReport;
}

function targetRows(example: ExampleCopy): unknown[] {
  return readFileRows(example.targetPath(), 'SELECT id, day, amount, region FROM events ORDER BY id, rowid');
}

describe('shadow mode: the legacy write plus records', () => {
  it('leaves the target exactly as legacy does, with the same exit codes, and records every attempt', async () => {
    const legacy = exampleCopy();
    const shadow = exampleCopy();
    policy(legacy, 'legacy');
    policy(shadow, 'shadow');
    for (const example of [legacy, shadow])
      for (const _ of [1, 2]) expect((await run(example)).exitCode).toBe(0);
    expect(targetRows(shadow)).toEqual(targetRows(legacy));
    expect(targetCounts(shadow.targetPath())).toEqual({
      rows: 2 * EXPECTED_ROWS,
      distinctIds: EXPECTED_ROWS,
    });
    // Same failure, same exit code, in both modes.
    for (const example of [legacy, shadow]) {
      const missing = example.variant('missing.yaml', (t) => t.replace('data/source.db', 'data/absent.db'));
      expect((await run(example, missing)).exitCode).toBe(EXIT_CODES.DPONE_OBJECT_NOT_FOUND);
    }

    const measured = await report(shadow);
    expect(measured.totals).toMatchObject({
      duplicate_operations: 1,
      duplicate_writes: 1,
      identity_collisions: 0,
    });
    const [operation] = measured.duplicates;
    expect(operation!.writes).toBe(2);
    expect(operation!.attempts.map((a) => [a.try, a.outcome, a.rows_written, a.would_decide])).toEqual([
      [1, 'committed', EXPECTED_ROWS, 'would write'],
      [2, 'committed', EXPECTED_ROWS, 'refused: already committed by attempt 1'],
    ]);
    expect(measured.unknown).toEqual([]);
    expect(measured.possible_duplicates).toEqual([]);
  });

  it('a run killed after its commit: the retry writes again; the report calls it possible, the target proves it', async () => {
    const example = exampleCopy();
    policy(example, 'shadow');
    const { child, parked } = parkedRun(example, 'target.commit:after', { env: ENV });
    await parked;
    child.kill('SIGKILL');
    await child;
    expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);
    const retry = await run(example);
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(JSON.parse(retry.stdout).shadow.would_decide).toMatch(/^would stop: outcome unknown \(attempt 1/);
    expect(targetCounts(example.targetPath()).rows).toBe(2 * EXPECTED_ROWS);
    const measured = await report(example);
    expect(measured.totals).toMatchObject({
      duplicate_operations: 0,
      possible_duplicate_operations: 1,
      unknown_outcomes: 1,
    });
  });

  it('identity collisions and partitions written by two operations are listed', async () => {
    const example = exampleCopy();
    policy(example, 'shadow');
    expect((await run(example)).exitCode).toBe(0);
    const otherIntent = example.variant('v2.yaml', (t) => t.replace('schema:v1', 'schema:v2'));
    const collided = await run(example, otherIntent);
    expect(JSON.parse(collided.stdout).shadow.would_decide).toMatch(
      /^refused: intent conflict with attempt 1/,
    );
    const otherOperation = example.variant('other.yaml', (t) =>
      t.replace('workload_id: orders_to_events', 'workload_id: orders_again'),
    );
    expect((await run(example, otherOperation)).exitCode).toBe(0);
    const measured = await report(example);
    expect(measured.totals).toMatchObject({
      identity_collisions: 1,
      shared_partitions: 1,
      duplicate_operations: 1,
    });
    expect(measured.shared_partitions[0]!.operation_ids).toHaveLength(2);
    expect((await report(example, ['--since', '2999-01-01'])).totals.attempts).toBe(0);
    const bad = await dpone(['shadow', 'report', '--workload', example.workload, '--since', 'yesterday'], {
      cwd: example.dir,
    });
    expect(bad.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
  });
});

describe('a shadow journal that cannot be reached never fails or holds the write', () => {
  it('a journal path that cannot exist: a warning, exit 0, the rows written', async () => {
    const example = exampleCopy();
    policy(example, 'shadow');
    writeFileSync(join(example.dir, 'blocker'), 'a file, not a folder');
    const result = await run(example, example.workload, [
      '--journal',
      embeddedJournalUrl(join(example.dir, 'blocker', 'journal.db')),
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/shadow journal .* cannot be opened: the write goes on unrecorded/);
    expect(JSON.parse(result.stdout).shadow).toMatchObject({ try: null, would_decide: null });
    expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);
  });

  it('a journal locked by another process: the write waits at most the policy bound, then goes on', async () => {
    const example = exampleCopy();
    policy(example, 'shadow', 'shadow:\n  timeout_ms: 300\n');
    mkdirSync(join(example.dir, 'data/state'), { recursive: true });
    const lock = lockFile(join(example.dir, 'data/state/journal.shadow.db'));
    try {
      const result = await run(example);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toMatch(
        /shadow journal .* (cannot be opened|could not record the attempt \((failed|timed out)\)): the write goes on unrecorded/,
      );
      expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);
    } finally {
      lock.release();
    }
  });
});
