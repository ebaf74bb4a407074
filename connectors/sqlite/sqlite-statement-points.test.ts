import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import { rowStreamOf } from '../../src/ports/row-stream.ts';
import { isStatementPoint } from '../../src/ports/statement-points.ts';
import { openTargetDatabase, markerOptions } from './sqlite-target.ts';
import { sqliteDialect } from './sqlite-dialect.ts';
import { flawedProtocol } from '../../src/adapters/connectors/marker-fence/marker-unsafe-target.ts';
import type { MarkerProtocol } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { MARKER_PROTOCOL, MarkerTarget } from '../../src/adapters/connectors/marker-fence/marker-target.ts';

const OP = 'sha256:' + 'a'.repeat(64);
const FENCE = { operationId: OP, epoch: 1, intentDigest: 'sha256:' + '1'.repeat(64), holder: 'h1' };
const COLUMNS = ['day', 'id'] as const;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dpone-statements-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Records every point; with `dieAt`, the process "dies" there: nothing after it runs. */
function recorder(dieAt?: string): FaultPoints & { readonly trace: string[] } {
  const trace: string[] = [];
  return {
    statements: true,
    trace,
    hit(point) {
      trace.push(point);
      if (point === dieAt) throw new Error(`killed at ${point}`);
    },
  };
}

const options = () => ({
  path: join(dir, 'target.db'),
  table: 'events',
  columns: COLUMNS,
  naturalKey: ['id'],
});

function target(faults: FaultPoints, protocol: MarkerProtocol = MARKER_PROTOCOL): MarkerTarget {
  const opened = options();
  return new MarkerTarget(
    sqliteDialect(openTargetDatabase(opened), opened.table),
    markerOptions({ ...opened, faults }),
    protocol,
  );
}

/** One run of the protocol's three target steps; a "kill" ends it where it happens. */
async function runSteps(faults: FaultPoints, protocol?: MarkerProtocol): Promise<void> {
  await using t = target(faults, protocol);
  await t.prepareFence(FENCE, { create: true });
  await t
    .mutate({
      fence: FENCE,
      strategy: 'append',
      partitionColumn: 'day',
      partitionValue: 'd',
      rows: rowStreamOf(COLUMNS, [
        ['d', 1],
        ['d', 2],
      ]),
    })
    .catch(() => undefined);
  await t.queryFence(OP).catch(() => undefined);
}

/** What a next run would find: the rows in the table, and whether the fence says committed. */
async function landed(): Promise<{ rows: number; committed: boolean }> {
  await using t = target({ hit: () => undefined });
  const db = openTargetDatabase(options());
  const { n } = db.prepare('SELECT count(*) AS n FROM events').get() as { n: number };
  db.close();
  return { rows: Number(n), committed: (await t.queryFence(OP)).status === 'committed' };
}

// The kernel's statement points (src/adapters/connectors/marker-fence/statement-dialect.ts), seen on
// a real dialect: SQLite's, the one that needs no server.
describe('statement points around what a marker target sends', () => {
  it('passes a point on each side of every statement, named by step and ordinal, never by SQL', async () => {
    const faults = recorder();
    await runSteps(faults);
    expect(faults.trace.filter(isStatementPoint)).toEqual([
      'stmt:prepare.1:before',
      'stmt:prepare.1:after',
      // guard, rows, row count, COMMIT
      ...[1, 2, 3, 4].flatMap((n) => [`stmt:mutate.${n}:before`, `stmt:mutate.${n}:after`]),
      'stmt:query.1:before',
      'stmt:query.1:after',
    ]);
    // The named points stay where they were: the COMMIT is the statement after target.commit:before.
    const commit = faults.trace.indexOf('target.commit:before');
    expect(faults.trace[commit + 1]).toBe('stmt:mutate.4:before');
  });

  it('passes nothing when the plan does not observe statements', async () => {
    const trace: string[] = [];
    await runSteps({ hit: (point) => void trace.push(point) });
    expect(trace.some(isStatementPoint)).toBe(false);
    expect(trace).toContain('target.commit:before');
  });

  it('the certified target: at every boundary of the mutation, rows and fence agree', async () => {
    for (const n of [1, 2, 3, 4])
      for (const side of ['before', 'after']) {
        rmSync(join(dir, 'target.db'), { force: true });
        await runSteps(recorder(`stmt:mutate.${n}:${side}`));
        const { rows, committed } = await landed();
        expect({ at: `${n}:${side}`, agree: committed ? rows === 2 : rows === 0 }).toEqual({
          at: `${n}:${side}`,
          agree: true,
        });
      }
  });

  it('two-commits: killed between its two COMMITs (no named point there), the rows land and the fence denies them', async () => {
    const protocol = flawedProtocol({ twoCommits: true });
    const faults = recorder();
    await runSteps(faults, protocol);
    // Its commit() sends two statements: the data's COMMIT, then the marker's guard on its own.
    const commit = faults.trace.indexOf('target.commit:before');
    expect(faults.trace.slice(commit, commit + 6)).toEqual([
      'target.commit:before',
      'stmt:mutate.3:before',
      'stmt:mutate.3:after',
      'stmt:mutate.4:before',
      'stmt:mutate.4:after',
      'target.commit:after',
    ]);
    rmSync(join(dir, 'target.db'), { force: true });
    await runSteps(recorder('stmt:mutate.3:after'), protocol);
    expect(await landed()).toEqual({ rows: 2, committed: false });
  });
});
