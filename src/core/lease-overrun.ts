import type { CommitJournalEntry } from '../contracts/journal.ts';
import { MAX_LEASE_TTL_MS } from '../contracts/lease-clock.ts';

/** What `plan` needs to judge a lease: now by the plan's clock, and the workload's TTL when known. */
export interface LeaseBoundContext {
  readonly nowMs: number;
  /** The workload's `execution.lease_ttl_ms` (with `--route`); else the largest TTL bounds it. */
  readonly leaseTtlMs?: number;
}

/**
 * How far a held lease outlives the longest it could honestly have left: a lease written at `t`
 * with TTL `ttl` expires at most `ttl` after now, so more than that (by the plan's clock) means
 * its holder's clock ran ahead when it wrote it. Null when no lease is held or it is within bounds.
 */
export function leaseOverrunMs(entry: CommitJournalEntry, context: LeaseBoundContext): number | null {
  const lease = entry.lease;
  if (lease === null) return null;
  const over = lease.expires_at_ms - context.nowMs - (context.leaseTtlMs ?? MAX_LEASE_TTL_MS);
  return over > 0 ? over : null;
}
