import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/contracts/errors.ts';
import { ATOMICITY_CHECKS } from './fence-atomicity.ts';
import type { FenceCheck, FenceFactory } from './fence-kit.ts';
import { INTENT, OP, OTHER_INTENT, fenceRef, write } from './fence-kit.ts';

export type { FenceCheck, FenceFactory, FenceFactoryOptions, FenceUnderTest } from './fence-kit.ts';
export { CONFORMANCE_COLUMNS, CONFORMANCE_ROWS, fenceRef } from './fence-kit.ts';
export { ATOMICITY_CHECKS } from './fence-atomicity.ts';

/**
 * The fence contract of the target port (src/ports/connector.ts), as a conformance suite every
 * target runs against a real, live target: every built-in engine's (connectors/<engine>/, a fake
 * driver where no server runs here) and plug-ins' through `dpone-cert/testing`. Exactly the
 * spec's connector requirements: prepare only raises the epoch (and creates the fence only when
 * asked); a stale epoch writes nothing; committed only with proof; not-committed only when
 * proven; a second commit of one operation is refused; unknown otherwise. Every refusal writes
 * nothing (rows are counted past the connector).
 * Then the atomicity checks (fence-atomicity.ts): data and fence commit as one transaction.
 *
 * The table the factory's target writes has the columns CONFORMANCE_COLUMNS (all text) and is
 * partitioned by `part`; the suite writes CONFORMANCE_ROWS into partition p1 with `append`. The
 * factory hands the `faults` it is given to the target it opens (the atomicity checks crash there).
 */

export const FENCE_CHECKS: readonly FenceCheck[] = [
  {
    name: 'installs only when creating, then commits once and proves it',
    async run(factory) {
      await using subject = await factory();
      const { target } = subject;
      const missing = await target.prepareFence(fenceRef(1), { create: false });
      expect(missing).toMatchObject({ installed: false, epoch: null, status: 'unknown' });
      expect(await target.queryFence(OP)).toMatchObject({ status: 'unknown', epoch: null });
      expect(await target.prepareFence(fenceRef(1), { create: true })).toEqual({
        installed: true,
        status: 'not-committed',
        epoch: 1,
        committedEpoch: null,
        rowsWritten: null,
        intentDigest: INTENT,
        holder: 'h1',
      });
      expect(await target.mutate(write(fenceRef(1)))).toEqual({ applied: true, rowsWritten: 2, epoch: 1 });
      expect(await target.queryFence(OP)).toEqual({
        status: 'committed',
        epoch: 1,
        committedEpoch: 1,
        rowsWritten: 2,
        intentDigest: INTENT,
        holder: 'h1',
      });
      expect(await subject.rows()).toBe(2);
    },
  },
  {
    name: 'a missing fence is never created outside PREPARING, and a write without one is DIVERGED',
    async run(factory) {
      await using subject = await factory();
      const { target } = subject;
      for (let i = 0; i < 2; i++) {
        expect(await target.prepareFence(fenceRef(5), { create: false })).toMatchObject({
          installed: false,
          epoch: null,
        });
      }
      await expect(target.mutate(write(fenceRef(5)))).rejects.toMatchObject({ code: ERROR_CODES.DIVERGED });
      expect(await target.queryFence(OP)).toMatchObject({ status: 'unknown', epoch: null });
      expect(await subject.rows()).toBe(0);
    },
  },
  {
    name: 'refuses a second commit whatever the epoch: the same epoch again, or a newer one',
    async run(factory) {
      await using subject = await factory();
      const { target } = subject;
      await target.prepareFence(fenceRef(1), { create: true });
      await target.mutate(write(fenceRef(1)));
      expect(await target.mutate(write(fenceRef(1)))).toEqual({ applied: false, rowsWritten: 2, epoch: 1 });
      // A reset journal's next holder, above the fence's epoch: installed, but the fence stays committed.
      const raised = await target.prepareFence(fenceRef(7, 'fresh-journal'), { create: true });
      expect(raised).toMatchObject({ installed: true, status: 'committed', epoch: 7, committedEpoch: 1 });
      expect(await target.mutate(write(fenceRef(7, 'fresh-journal')))).toMatchObject({ applied: false });
      expect(await subject.rows()).toBe(2);
    },
  },
  {
    name: 'refuses another intent at the target: prepare leaves the fence alone, mutate is INTENT_CONFLICT',
    async run(factory) {
      await using subject = await factory();
      const { target } = subject;
      await target.prepareFence(fenceRef(1), { create: true });
      // The fence's own epoch, not committed yet, another intent (a forked journal reissuing the
      // epoch): the commit guard alone refuses it, by the intent it checks.
      await expect(target.mutate(write(fenceRef(1, 'h1', OTHER_INTENT)))).rejects.toMatchObject({
        code: ERROR_CODES.INTENT_CONFLICT,
      });
      expect(await subject.rows()).toBe(0);
      const other = fenceRef(2, 'h2', OTHER_INTENT);
      expect(await target.prepareFence(other, { create: true })).toMatchObject({
        installed: false,
        epoch: 1,
        intentDigest: INTENT,
      });
      await expect(target.mutate(write(other))).rejects.toMatchObject({ code: ERROR_CODES.INTENT_CONFLICT });
      await target.mutate(write(fenceRef(1)));
      await expect(target.mutate(write(fenceRef(1, 'h1', OTHER_INTENT)))).rejects.toMatchObject({
        code: ERROR_CODES.INTENT_CONFLICT,
      });
      expect(await subject.rows()).toBe(2);
    },
  },
  {
    name: 'refuses a stale epoch (a zombie) and never lowers the epoch',
    async run(factory) {
      await using subject = await factory();
      const { target } = subject;
      await target.prepareFence(fenceRef(1), { create: true });
      expect(await target.prepareFence(fenceRef(3), { create: false })).toMatchObject({
        installed: true,
        epoch: 3,
      });
      expect(await target.prepareFence(fenceRef(2), { create: true })).toMatchObject({
        installed: false,
        epoch: 3,
        holder: 'h3',
      });
      await expect(target.mutate(write(fenceRef(1)))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
      expect(await target.queryFence(OP)).toMatchObject({ status: 'not-committed', epoch: 3 });
      expect(await subject.rows()).toBe(0);
    },
  },
  {
    name: 'an equal epoch is installed again only for its holder',
    async run(factory) {
      await using subject = await factory();
      const { target } = subject;
      await target.prepareFence(fenceRef(1, 'journal-a'), { create: true });
      expect(await target.prepareFence(fenceRef(1, 'journal-a'), { create: false })).toMatchObject({
        installed: true,
      });
      expect(await target.prepareFence(fenceRef(1, 'journal-b'), { create: true })).toMatchObject({
        installed: false,
        epoch: 1,
        holder: 'journal-a',
      });
      expect(await subject.rows()).toBe(0);
    },
  },
];

/** Every check the kit runs: the fence contract, then atomicity (ATOMICITY_CHECKS). */
export const KIT_CHECKS: readonly FenceCheck[] = [...FENCE_CHECKS, ...ATOMICITY_CHECKS];

export interface FenceConformanceOptions {
  /** When set, the suite is registered as skipped with this visible reason (e.g. UNVERIFIED: no server). */
  readonly skipReason?: string;
  /**
   * When set, the atomicity checks alone are registered as skipped with this visible reason: for a
   * stand-in with no transactions to roll back (a fake driver), never for a real database.
   */
  readonly atomicitySkipReason?: string;
}

/** Registers the fence contract as a vitest suite: one test per check. */
export function describeFenceConformance(
  name: string,
  factory: FenceFactory,
  options: FenceConformanceOptions = {},
): void {
  const { skipReason, atomicitySkipReason } = options;
  const suite = skipReason === undefined ? describe : describe.skip;
  suite(`fence contract: ${name}${skipReason ? ` — ${skipReason}` : ''}`, () => {
    for (const check of FENCE_CHECKS) it(check.name, () => check.run(factory));
    for (const check of ATOMICITY_CHECKS) {
      if (atomicitySkipReason === undefined) it(check.name, () => check.run(factory));
      else it.skip(`${check.name} — ${atomicitySkipReason}`, () => check.run(factory));
    }
  });
}

/** One check's result when the contract is run as data (checkFenceContract). */
export interface FenceCheckResult {
  readonly name: string;
  readonly passed: boolean;
  /** The assertion that failed, when it failed. */
  readonly problem: string | null;
}

/**
 * Runs every check and returns what held and what broke instead of failing a test: how a test
 * shows that a deliberately broken fence is caught.
 */
export async function checkFenceContract(factory: FenceFactory): Promise<FenceCheckResult[]> {
  const results: FenceCheckResult[] = [];
  for (const check of KIT_CHECKS) {
    try {
      await check.run(factory);
      results.push({ name: check.name, passed: true, problem: null });
    } catch (error) {
      results.push({ name: check.name, passed: false, problem: (error as Error).message.split('\n')[0]! });
    }
  }
  return results;
}
