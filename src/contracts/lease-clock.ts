import type { ExecutorLease } from './journal.ts';

/**
 * Which clock decides a lease, and what a journal does with an expiry no honest clock could have
 * written. Pure: every journal adapter and the recovery planner read leases through these.
 *
 * A lease is `expires_at_ms = now + ttl` with the `now` of whoever wrote it, compared later with
 * the `now` of whoever reads it. A server journal takes both from its own clock inside the
 * compare-and-set statement, so the workers' clocks do not matter. A journal without a server (an
 * embedded file) has only the workers' clocks: a holder whose clock runs ahead writes
 * an expiry that far in the future. No TTL is longer than MAX_LEASE_TTL_MS, so an expiry further
 * ahead than that from the reader's `now` cannot come from a correct clock: it is a clock fault,
 * read as expired. Taking such a lease over is safe for the same reason any takeover is: the new
 * holder raises the target fence's epoch before it reconciles or writes, and the fence — not the
 * lease — stops the old holder.
 */

/** The largest lease TTL a workload may ask for (`execution.lease_ttl_ms`): one day. */
export const MAX_LEASE_TTL_MS = 86_400_000;

/** Who supplies `now` for a journal's leases: the caller's clock, or the journal server's own. */
export type LeaseClock = 'caller' | 'server';

/** True when the stored expiry lies further ahead of `nowMs` than any TTL allows. */
export function leaseClockFault(lease: Pick<ExecutorLease, 'expires_at_ms'>, nowMs: number): boolean {
  return lease.expires_at_ms - nowMs > MAX_LEASE_TTL_MS;
}

/** Expired at `nowMs`: past its expiry, or carrying an expiry no correct clock could have written. */
export function leaseExpired(lease: Pick<ExecutorLease, 'expires_at_ms'>, nowMs: number): boolean {
  return lease.expires_at_ms <= nowMs || leaseClockFault(lease, nowMs);
}

/** Whether a lease is live at `nowMs` (none, expired and clock-faulted leases are not). */
export function leaseLive(lease: ExecutorLease | null, nowMs: number): boolean {
  return lease !== null && !leaseExpired(lease, nowMs);
}

/** The history reason of a takeover of a clock-faulted lease (its holder and expiry are recorded). */
export const CLOCK_FAULT_TAKEOVER = 'lease:takeover-clock-fault';

/** One line for an operator: which lease was read as a clock fault, and why that is safe. */
export function clockFaultWarning(lease: ExecutorLease, nowMs: number, newEpoch: number): string {
  const ahead = Math.round((lease.expires_at_ms - nowMs) / 1000);
  const at = new Date(lease.expires_at_ms);
  const when = Number.isNaN(at.getTime()) ? `${lease.expires_at_ms} ms` : at.toISOString();
  return (
    `the lease of holder ${lease.holder} (epoch ${lease.epoch}) expires at ${when}, ${ahead} s ahead of this clock: further than the largest ` +
    `lease TTL (${MAX_LEASE_TTL_MS / 3_600_000} h) allows, so its writer's clock was wrong. It was read as ` +
    `expired and taken over with epoch ${newEpoch}; the fence's epoch is raised before anything is written, ` +
    'so that holder cannot commit any more'
  );
}
