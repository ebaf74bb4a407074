import type { CommitJournalEntry } from '../../contracts/journal.ts';
import type { LeaseInput, PlannedChange } from '../../contracts/journal-rules.ts';
import { planLease } from '../../contracts/journal-rules.ts';
import { CLOCK_FAULT_TAKEOVER, clockFaultWarning } from '../../contracts/lease-clock.ts';
import type { JournalWarn } from '../../ports/journal.ts';

/**
 * planLease for an adapter that decides leases in the process (an embedded file journal, memory,
 * a server journal that plans in the process): when the change takes over a clock-faulted lease,
 * the adapter's `warn` hears which holder and expiry.
 */
export function planLeaseWarning(
  current: CommitJournalEntry,
  input: LeaseInput,
  warn: JournalWarn | undefined,
): PlannedChange {
  const planned = planLease(current, input);
  if (
    warn !== undefined &&
    current.lease !== null &&
    planned.record.evidence.reason === CLOCK_FAULT_TAKEOVER
  ) {
    warnClockFault(warn, current.lease, input.nowMs, planned.entry.lease?.epoch ?? 0);
  }
  return planned;
}

/** Hands the one-line warning to `warn`; a warning that fails to print never fails the write. */
export function warnClockFault(
  warn: JournalWarn,
  lease: NonNullable<CommitJournalEntry['lease']>,
  nowMs: number,
  newEpoch: number,
): void {
  try {
    warn(clockFaultWarning(lease, nowMs, newEpoch));
  } catch {
    // secondary: the takeover is recorded in the history either way
  }
}
