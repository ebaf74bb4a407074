import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { PlannedRecoveryAction } from './recovery-actions.ts';

/** The reason an operator's expire-lease records: an audit record that changes the lease only. */
export const EXPIRE_LEASE_REASON = 'recovery:expire-lease';

/**
 * `expire-lease`: the operator's way out of a lease whose holder is known dead (a worker that
 * died with its clock ahead leaves a lease every retry honours; a journal on the server's clock
 * holds a dead holder's lease for its TTL). It ends the lease with compare-and-set on the version
 * the operator saw and an audit record; the state stays. Safe even if the holder is not dead: the
 * next executor takes a newer epoch and raises it in the target fence before it reconciles or
 * writes, and the fence refuses the old holder's commit. Recommended when the lease outlives its
 * TTL bound (leaseOverrunMs).
 */
export function planExpireLease(entry: CommitJournalEntry): PlannedRecoveryAction {
  const held = entry.lease !== null;
  const preconditions = [
    { description: 'an executor holds a lease (there is one to end)', met: held },
    {
      description: 'the operation is not COMPLETE (a complete operation holds no lease worth ending)',
      met: entry.state !== 'COMPLETE',
    },
  ];
  const legal = preconditions.every((condition) => condition.met);
  return {
    name: 'expire-lease',
    legal,
    preconditions,
    effect:
      'ends the lease of a holder known dead, state unchanged; the next `dpone run` takes a newer epoch, raises ' +
      'it in the target fence before it reconciles or writes (a holder still alive is refused there), and goes on',
    transition: held ? { from: entry.state, to: entry.state } : null,
    proof: held ? 'operator-assertion' : null,
  };
}
