import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { LoadStrategy, TargetConnector } from '../../src/ports/connector.ts';
import { openUnsafeClickHouseTarget } from './clickhouse-unsafe-variants.ts';
import {
  BATCH,
  COLUMNS,
  CREATE,
  eventually,
  fence,
  liveClickHouse,
  parkAt,
  request,
  unverified,
  whileFenceUnavailable,
} from './fixtures/clickhouse-live.ts';

/**
 * Issue 29 row 1: two operations (different ids) replacing ONE partition, a server restart in the
 * window. Before partition claims, Y read the partition's tags before X swapped, so Y's durable
 * delete never named X's tags; after a restart X's replaced part came back for good: both copies,
 * both operations committed. Here Y parks at every point of its staging, swap and settle, X runs
 * meanwhile, the server is SIGKILLed and started again, Y resumes, then each operation's next
 * holder finishes it: the partition must hold exactly one generation's rows, every replaced row
 * gone for good, and both fences must say committed.
 */
const live = liveClickHouse('two');
const { freshDb, open, count } = live;

const fenceOf = (operationId: string, epoch: number) => fence(epoch, `${operationId}-h${epoch}`, operationId);
const requestOf = (operationId: string, epoch: number, strategy: LoadStrategy = 'replace-partition') =>
  request(epoch, strategy, BATCH, fenceOf(operationId, epoch));

/** Runs operation `op` to its end as a fresh holder of `epoch` would: settles, or writes once. */
async function finish(
  target: TargetConnector,
  op: string,
  epoch: number,
  strategy?: LoadStrategy,
): Promise<string> {
  const answer = await target.prepareFence(fenceOf(op, epoch), { create: epoch === 1 });
  if (answer.status === 'committed') return 'committed-before';
  await target.mutate(requestOf(op, epoch, strategy));
  return 'written';
}

/** Retries `step` while it answers retry-safe FENCE_UNAVAILABLE (a settle still running after the restart). */
const settling = <T>(step: () => Promise<T>): Promise<T> => whileFenceUnavailable(step, 10, 300);

const POINTS = [
  'target.stage:after',
  'target.commit:before',
  'target.commit:after',
  'target.settle:after',
  'target.marker:after',
] as const;

describe.skipIf(unverified)(
  'two replace operations on one partition, a restart in each window (live)',
  () => {
    for (const point of POINTS)
      for (const fate of ['resumes', 'dies'] as const) {
        it(`Y parked at ${point}, X runs, SIGKILL restart, Y ${fate}: one generation, both committed once`, async () => {
          const db = await freshDb();
          await live.seed(db, "('9','p1','old','',0)", "('7','p2','keep','',0)");
          const park = parkAt(point);
          const y = await open(db, park.faults);
          await y.prepareFence(fenceOf('op-y', 1), CREATE);
          const yOutcome = y.mutate(requestOf('op-y', 1)).then(
            () => 'returned',
            (e: { code?: string }) => e.code,
          );
          await park.parked;
          let x: string;
          {
            await using target = await open(db);
            x = await finish(target, 'op-x', 1).catch((e: { code?: string }) => e.code ?? 'error');
          }
          await live.server().restart('SIGKILL');
          if (fate === 'resumes') park.release();
          const yEnd = fate === 'resumes' ? await yOutcome : 'dead';
          let yNext: string;
          {
            await using target = await open(db);
            yNext = await settling(() => finish(target, 'op-y', 2));
            if (x !== 'written') await settling(() => finish(target, 'op-x', 2));
            await eventually(async () => (await count(db, "part = 'p1' AND _dpone_op = ''")) === 0);
            expect(await settling(() => target.queryFence('op-y'))).toMatchObject({ status: 'committed' });
            expect(await settling(() => target.queryFence('op-x'))).toMatchObject({ status: 'committed' });
          }
          // Once more after everything settled: a restart must not bring any replaced part back.
          await live.server().restart('SIGKILL');
          await new Promise((resolve) => setTimeout(resolve, 1000));
          await eventually(async () => (await count(db, "part = 'p1'")) === 2);
          expect(await count(db, "part = 'p1' AND _dpone_op != ''")).toBe(2);
          const generations = await live
            .server()
            .exec(`SELECT count(DISTINCT (_dpone_op, _dpone_epoch)) FROM ${db}.events WHERE part = 'p1'`);
          expect(generations.trim()).toBe('1');
          expect(await count(db, "part = 'p2'")).toBe(1);
          // While Y's claim is open (claimed, swapped but unsettled) X must refuse, never swap.
          const yOpen = point === 'target.commit:before' || point === 'target.commit:after';
          expect(x).toBe(yOpen ? ERROR_CODES.PARTITION_BUSY : 'written');
          // Y landed once: its next holder must find that out (even with Y's rows replaced by X's
          // and no commit record of Y's), never write a second time.
          const yLanded =
            fate === 'resumes'
              ? yEnd === 'returned'
              : point !== 'target.stage:after' && point !== 'target.commit:before';
          expect(yNext).toBe(yLanded ? 'committed-before' : 'written');
          if (fate === 'dies') {
            park.release();
            // Released after its commit record, only its cleanup is left: it may return.
            if (point !== 'target.marker:after') expect(await yOutcome).not.toBe('returned');
          }
          await y.close();
        }, 90_000);
      }

    // The flaw shows only while X's replaced part is still on disk at a restart that comes before
    // Y's settle: Y's settle makes every replaced part of the partition unable to come back once
    // it ran (it has the server delete their files: clickhouse-replace.ts), but a part a restart
    // already brought back is active again, and Y's recorded tags do not name X's. 18.16 removes a
    // part REPLACE PARTITION replaced at its next background cleanup: seconds (2.6–10.5 s measured
    // here), and once in CI within the ~0.5 s between Y's swap and the restart, so that run saw 2
    // rows and no flaw. A run the cleanup won shows exactly Y's rows and proves nothing either way;
    // the variant must be caught in one of a few runs.
    it('the unclaimed-partition variant: Y records the tags, X swaps, Y swaps, restart before Y settles: both copies (caught)', async () => {
      const seen: number[] = [];
      for (let run = 1; run <= 5 && !seen.includes(4); run++) {
        const db = await freshDb();
        await live.seed(db, "('9','p1','old','',0)");
        const beforeSwap = parkAt('target.commit:before');
        const afterSwap = parkAt('target.commit:after');
        const options = {
          url: live.server().url(db),
          table: 'events',
          columns: COLUMNS,
          naturalKey: ['id'],
          partitionColumn: 'part',
        };
        const y = await openUnsafeClickHouseTarget('unclaimed-partition', {
          ...options,
          faults: { hit: (point) => beforeSwap.faults.hit(point) ?? afterSwap.faults.hit(point) },
        });
        await y.prepareFence(fenceOf('op-y', 1), CREATE);
        const yOutcome = y.mutate(requestOf('op-y', 1)).catch(() => undefined);
        await beforeSwap.parked;
        {
          const x = await openUnsafeClickHouseTarget('unclaimed-partition', options);
          expect(await finish(x, 'op-x', 1)).toBe('written');
          await x.close();
        }
        beforeSwap.release();
        await afterSwap.parked;
        await live.server().restart('SIGKILL');
        {
          const next = await openUnsafeClickHouseTarget('unclaimed-partition', options);
          expect(await settling(() => finish(next, 'op-y', 2))).toBe('committed-before');
          await next.close();
        }
        afterSwap.release();
        await yOutcome;
        await y.close();
        await eventually(async () => (await count(db, "part = 'p1' AND _dpone_op = ''")) === 0);
        seen.push(await count(db, "part = 'p1'"));
      }
      // 4: X's replaced rows came back beside Y's (caught); 2: the cleanup won that run.
      expect(seen.every((rows) => rows === 2 || rows === 4)).toBe(true);
      expect(seen).toContain(4);
    }, 120_000);

    it('an append into a partition whose replace is swapped but unsettled is refused, then lands after it', async () => {
      const db = await freshDb();
      await live.seed(db, "('9','p1','old','',0)");
      const park = parkAt('target.commit:after');
      const y = await open(db, park.faults);
      await y.prepareFence(fenceOf('op-y', 1), CREATE);
      const yOutcome = y.mutate(requestOf('op-y', 1)).catch(() => undefined);
      await park.parked;
      {
        await using a = await open(db);
        await expect(finish(a, 'op-a', 1, 'append')).rejects.toMatchObject({
          code: ERROR_CODES.PARTITION_BUSY,
        });
      }
      await live.server().restart('SIGKILL');
      park.release();
      await yOutcome;
      await y.close();
      await using target = await open(db);
      await settling(() => finish(target, 'op-y', 2));
      expect(await finish(target, 'op-a', 2, 'append')).toBe('written');
      await live.server().restart('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await eventually(async () => (await count(db, "part = 'p1' AND _dpone_op = ''")) === 0);
      expect(await count(db, "part = 'p1' AND _dpone_op = 'op-y'")).toBe(2);
      expect(await count(db, "part = 'p1' AND _dpone_op = 'op-a'")).toBe(2);
    }, 90_000);

    it('appends into one partition never refuse each other', async () => {
      const db = await freshDb();
      const park = parkAt('target.commit:before');
      const a = await open(db, park.faults);
      await a.prepareFence(fenceOf('op-a', 1), CREATE);
      const aOutcome = a.mutate(requestOf('op-a', 1, 'append'));
      await park.parked;
      {
        await using b = await open(db);
        expect(await finish(b, 'op-b', 1, 'append')).toBe('written');
      }
      park.release();
      await aOutcome;
      await a.close();
      expect(await count(db, "part = 'p1'")).toBe(4);
    }, 60_000);
  },
);
