import type { JournalHistoryRecord } from '../../src/contracts/journal.ts';
import type { LeaseClock } from '../../src/contracts/lease-clock.ts';
import { MAX_LEASE_TTL_MS } from '../../src/contracts/lease-clock.ts';
import type { CheckRecord } from '../evidence/evidence-types.ts';
import { AUDIT_TRUTH, LEASE_BOUND } from '../evidence/check-names.ts';

/**
 * Slack over the journal's own promise, for starting the retrier processes (a second or so each
 * under load) and the harness's polling: well under the few seconds a trusted wrong clock adds.
 */
export const BOUND_SLACK_MS = 3_000;

/**
 * How long after a holder died, its clock `skewMs` off, a normal retrier may have to wait by the
 * journal's own tolerance: a journal on its server's clock, the TTL whatever the skew; a journal
 * on the callers' clocks, the TTL plus how far the holder was ahead — unless that puts its expiry
 * beyond the largest TTL, which is a clock fault and expired at once; a holder behind leaves an
 * expiry that much earlier.
 */
export function promisedWaitMs(clock: LeaseClock, ttlMs: number, skewMs: number): number {
  if (clock === 'server') return ttlMs;
  if (skewMs + ttlMs > MAX_LEASE_TTL_MS) return 0;
  return Math.max(0, ttlMs + skewMs);
}

/** libfaketime's `+6s`, `-365d`, `+1h` as milliseconds. */
export function offsetMs(offset: string): number {
  const match = /^([+-])(\d+)([smhd])$/.exec(offset);
  if (!match) throw new TypeError(`not an offset: ${offset}`);
  const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[3] as 's' | 'm' | 'h' | 'd'];
  return (match[1] === '-' ? -1 : 1) * Number(match[2]) * unit;
}

/**
 * `lease-bound`: the operation was not wedged past what the journal's clock promises.
 * `startedAfterMs` is when the try that completed it started, after the holder died; null when a
 * try that started past the promise was still refused (or a try failed for another reason).
 */
export function leaseBoundCheck(
  startedAfterMs: number | null,
  promisedMs: number,
  clock: LeaseClock,
  tries: number,
): CheckRecord {
  const bound = promisedMs + BOUND_SLACK_MS;
  const promise = `the ${clock === 'server' ? 'journal server' : 'callers'}' clock promises at most ${promisedMs} ms (+${BOUND_SLACK_MS} ms slack)`;
  if (startedAfterMs !== null && startedAfterMs <= bound)
    return {
      name: LEASE_BOUND,
      verdict: 'PASS',
      detail: `a normal retrier's try ${tries}, started ${startedAfterMs} ms after the skewed holder died, completed the operation; ${promise}`,
    };
  return {
    name: LEASE_BOUND,
    verdict: 'FAIL',
    detail:
      startedAfterMs === null
        ? `the operation was wedged: a normal try started more than ${bound} ms after the skewed holder died was still refused (${tries} tries); ${promise}`
        : `the first normal try that completed the operation started only ${startedAfterMs} ms after the skewed holder died; ${promise}`,
  };
}

/**
 * `audit-truth`: what each audit record of the cell's operator states about the target holds in
 * the target's own rows. "Not committed" (the fence's proof) means no attempt that existed before
 * the audit lands a mutation afterwards: before any new attempt runs, the target shows none.
 * "Committed" means it shows one. An audit that names a fence proof should name the epoch it
 * installed (fence first); whether it does is reported.
 */
export function auditTruthCheck(
  audits: readonly JournalHistoryRecord[],
  mutationsBeforeNewAttempts: number,
): CheckRecord {
  if (audits.length === 0)
    return {
      name: AUDIT_TRUTH,
      verdict: 'PASS',
      detail: 'the operator applied nothing: no audit statement to check',
    };
  const problems: string[] = [];
  const said: string[] = [];
  for (const record of audits) {
    const claim = record.evidence.fence_status;
    const epoch = record.audit?.fence_epoch;
    said.push(
      `${record.audit?.action ?? 'audit'} v${record.version}: ${claim ?? 'no fence claim'}${epoch ? ` (fence epoch ${epoch} installed first)` : ''}`,
    );
    if (claim === 'not-committed' && mutationsBeforeNewAttempts > 0)
      problems.push(
        `${record.audit?.action} stated the fence proved nothing landed, yet an attempt already running landed ${mutationsBeforeNewAttempts} mutation(s) after it`,
      );
    if (claim === 'committed' && mutationsBeforeNewAttempts === 0)
      problems.push(`${record.audit?.action} stated a commit the target does not show`);
  }
  return {
    name: AUDIT_TRUTH,
    verdict: problems.length === 0 ? 'PASS' : 'FAIL',
    detail:
      problems.length === 0
        ? `every audit statement holds in the target: ${said.join('; ')}`
        : problems.join('; '),
  };
}
