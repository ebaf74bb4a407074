/**
 * The names of the checks that catch unsafe variants (checkers/sensitivity.ts) and decide gate
 * lines, in one place: the checkers and fault modules that write these checks, the sensitivity
 * analysis and the gate all import them from here (evidence vocabulary: imports nothing).
 */

/** Right after a kill the target holds its rows from before or the whole load (faults/atomic-visibility.ts). */
export const ATOMIC_VISIBILITY = 'atomic-visibility';

/** A clock-skew cell: a normal retrier completed within the journal's promised wait (faults/clock-skew-checks.ts). */
export const LEASE_BOUND = 'lease-bound';
/** A clock-skew cell: what the operator's audit records state holds in the target's rows (faults/clock-skew-checks.ts). */
export const AUDIT_TRUTH = 'audit-truth';

/** The conflicting attempt exited with the intent-conflict code (faults/intent-conflict-fault.ts). */
export const INTENT_CONFLICT_REFUSED = 'intent-conflict-refused';

/** A lost-commit cell: the run after the failover diverged (faults/lost-commit-fault.ts). */
export const LOST_COMMIT_DIVERGED = 'lost-commit-diverged';

/** A stall cell: the stalled worker ended on its own within the stated bound (faults/stall-fault.ts). */
export const STALL_BOUNDED = 'stall-bounded';

/** A reference cell: how its run ended, and how the recorded reference run ended (faults/reference-fault.ts). */
export const REFERENCE_RUN = 'reference-run';

/** The journal's history agrees with its lease (checkers/journal-lease-checker.ts). */
export const JOURNAL_LEASE = 'journal-lease';

/** No source, target or fence I/O, decided from what the storage recorded (routes/storage-seal.ts). */
export const STORAGE_UNTOUCHED = 'storage-untouched';

/** A shadow cell: the target holds exactly what legacy writes (faults/shadow-fault.ts). */
export const SHADOW_PARITY = 'shadow-legacy-parity';

/** A shadow cell: `dpone shadow report` counts exactly the extra mutations the target's rows show. */
export const SHADOW_REPORT = 'shadow-report';

/** A power-loss cell: the journal after the cut holds every transition the killed attempt had committed (faults/power-loss-fault.ts). */
export const POWER_LOSS_DURABLE = 'power-loss-durable';

/**
 * A power-loss cell on the target: the retry said what it found, i.e. it wrote the load exactly when
 * the cut had taken the killed attempt's commit away, and reported it as already there otherwise (faults/power-loss-fault.ts).
 */
export const POWER_LOSS_RECOVERY = 'power-loss-recovery';

/**
 * A power-loss cell on a server: an operation the killed attempt had been told was COMPLETE still
 * has its load in the target after the cut (success was never reported for data that did not
 * survive) (faults/power-loss-fault.ts).
 */
export const POWER_LOSS_ACKNOWLEDGED = 'power-loss-acknowledged';

/** A full-disk cell: the attempt that met the full disk exited 18 naming the file and the cause (faults/full-disk-fault.ts). */
export const STORAGE_FULL_REFUSED = 'storage-full-refused';

/** A full-disk cell: the refused attempt handed its lease back (faults/full-disk-fault.ts). */
export const STORAGE_FULL_LEASE = 'storage-full-lease';

/** A pause cell holding the next worker after its fence preparation: the resumed zombie wrote nothing to the target (faults/pause-fault.ts). */
export const ZOMBIE_FENCED = 'zombie-fenced';

/** A read-only-disk cell: the attempt that met the read-only file system exited 31 naming the file, the cause and how to lift it (faults/read-only-disk-fault.ts). */
export const STORAGE_READ_ONLY_REFUSED = 'storage-read-only-refused';

/** A read-only-disk cell: the refused attempt left the target's rows as they were and no lease of its own (faults/read-only-disk-fault.ts). */
export const STORAGE_READ_ONLY_UNTOUCHED = 'storage-read-only-untouched';

/** A journal-corruption cell: the retry on the damaged journal said corrupt (19) or ran normally, nothing else (faults/journal-corruption-fault.ts). */
export const JOURNAL_CORRUPTION_DETECTED = 'journal-corruption-detected';
