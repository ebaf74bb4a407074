import {
  ATOMIC_VISIBILITY,
  JOURNAL_CORRUPTION_DETECTED,
  POWER_LOSS_ACKNOWLEDGED,
  POWER_LOSS_DURABLE,
  POWER_LOSS_RECOVERY,
  STORAGE_FULL_LEASE,
  STORAGE_FULL_REFUSED,
} from '../../../../harness/evidence/check-names.ts';
import type { CellEvidence } from '../../../../harness/evidence/evidence-types.ts';
import type { AcceptanceItem, ItemVerdict } from '../../../../harness/gate/acceptance-item.ts';
import {
  allPass,
  checkPassed,
  decidedBy,
  eachPassesOnce,
  mutations,
} from '../../../../harness/gate/cell-verdicts.ts';

/**
 * Issue 28's gate lines for routes whose target is PostgreSQL: the route as it runs in production,
 * behind a pooler, through a failover that loses a commit, with stalled backends. Each is decided by
 * the cells that really reached the situation, counted; zero cells is never PASS.
 */

export const poolerItem: AcceptanceItem = {
  id: 'pooler-values-exact',
  text: 'behind PgBouncer in session and transaction pooling, with odd role settings, crash, race and pause cells land exactly one mutation and every value identical to the source',
  evaluate(cells) {
    const lane = cells.filter(
      (cell) => cell.fault.pooler === 'session' || cell.fault.pooler === 'transaction',
    );
    const failed = allPass(lane, 'PgBouncer lane');
    if (failed) return failed;
    const unchecked = lane.filter((cell) => !checkPassed(cell, 'parity'));
    if (unchecked.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(unchecked),
        detail: `${unchecked[0]!.id} has no passing per-value parity`,
      };
    const covered = (mode: string, kind: string) =>
      lane.some((cell) => cell.fault.pooler === mode && cell.fault.kind === kind);
    // Crash and race in both modes; pause in transaction pooling (a server connection changes hands there).
    const missing = [
      ...['session', 'transaction'].flatMap((mode) =>
        ['crash', 'race'].filter((kind) => !covered(mode, kind)).map((kind) => `${kind} (${mode})`),
      ),
      ...(covered('transaction', 'pause') ? [] : ['pause (transaction)']),
    ];
    if (missing.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(lane),
        detail: `no PgBouncer lane cell for ${missing.join(', ')}`,
      };
    const count = (mode: string) => lane.filter((cell) => cell.fault.pooler === mode).length;
    return {
      status: 'PASS',
      ...decidedBy(lane),
      detail: `${lane.length} cells through PgBouncer PASS (${count('session')} session, ${count('transaction')} transaction pooling: crash, race, pause), each one mutation with per-value parity`,
    };
  },
};

export const lostCommitItem: AcceptanceItem = {
  id: 'lost-commit-diverged',
  text: 'a commit the target lost after it was acknowledged (failover to an async standby) is never reported complete: the run exits DIVERGED, and after the audited reopen exactly one mutation lands',
  evaluate(cells) {
    const lost = cells.filter((cell) => cell.fault.kind === 'lost-commit');
    const failed = allPass(lost, 'lost-commit');
    if (failed) return failed;
    const wrong = lost.filter((cell) => !checkPassed(cell, 'lost-commit-diverged') || mutations(cell) !== 1);
    if (wrong.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(wrong),
        detail: `${wrong[0]!.id}: no DIVERGED after the failover, or not exactly one mutation after the reopen`,
      };
    return {
      status: 'PASS',
      ...decidedBy(lost),
      detail: `${lost.length} lost-commit cell(s) PASS: DIVERGED (29) after the failover, reopen, then exactly one mutation`,
    };
  },
};

export const stallItem: AcceptanceItem = {
  id: 'stall-bounded',
  text: 'a stalled target (backend SIGSTOPped, or a server that stops answering) ends every run within its stated bound, in every phase including the COPY, and the fence then decides: exactly one mutation',
  evaluate(cells) {
    const stalls = cells.filter((cell) => cell.fault.kind === 'stall');
    const failed = allPass(stalls, 'stall');
    if (failed) return failed;
    const unbounded = stalls.filter((cell) => !checkPassed(cell, 'stall-bounded'));
    if (unbounded.length > 0)
      return { status: 'FAIL', ...decidedBy(unbounded), detail: `${unbounded[0]!.id} has no bounded end` };
    const phases = new Set(stalls.map((cell) => String(cell.id.split('/').at(-2))));
    if (!phases.has('copy'))
      return { status: 'FAIL', ...decidedBy(stalls), detail: 'no stall cell in the middle of the COPY' };
    return {
      status: 'PASS',
      ...decidedBy(stalls),
      detail: `${stalls.length} stall cells PASS in ${phases.size} phases (${[...phases].sort().join(', ')}), each within its bound, one mutation`,
    };
  },
};

/**
 * Issue 33's PostgreSQL line: a power cut under the server's data directory (the target and the
 * journal on it, scenarios/storage/postgres-power-loss.yaml), the server SIGKILLed with it and
 * restarted, takes back nothing the killed attempt was told had committed, never leaves an
 * acknowledged COMPLETE without its rows, and the retry says what it found and lands exactly one
 * mutation. Decided by the power-loss cells on a server; cells that could not mount the filesystem
 * (no FUSE) are UNVERIFIED, and so is the line; none at all is FAIL.
 */
export const powerLossServerItem: AcceptanceItem = {
  id: 'power-loss-server-durable',
  text: 'a power cut under the PostgreSQL data directory (target and journal on it, the server killed with the cut and restarted) after every journal write and the target commit takes back no acknowledged commit, never leaves a COMPLETE without its rows, and the retry writes the load exactly when it did not survive, landing exactly one mutation',
  evaluate(cells) {
    const cuts = cells.filter((cell) => cell.fault.kind === 'power-loss' && cell.fault.storage === 'server');
    const failed = eachPassesOnce(cuts, 'power-loss (server)', [
      POWER_LOSS_DURABLE,
      POWER_LOSS_ACKNOWLEDGED,
      POWER_LOSS_RECOVERY,
      ATOMIC_VISIBILITY,
    ]);
    if (failed) return failed;
    const rewritten = cuts.filter((cell) => cell.fault.load_survived_cut === 0).length;
    return {
      status: 'PASS',
      ...decidedBy(cuts),
      detail: `${cuts.length} power-loss cells under the server PASS: every acknowledged commit survived the cut; ${rewritten} retries wrote a load the cut had not kept (it had not committed), the rest found it; one mutation each`,
    };
  },
};

/**
 * The rule of a server line whose fault must be seen at work: every selected cell PASSes once
 * (eachPassesOnce: `what`, each of `own` PASS, one mutation) and at least one attempt stopped with
 * `exit`, else FAIL saying `never`; the PASS says how many did (`passed`).
 */
function seenExiting(
  selected: readonly CellEvidence[],
  cellsAre: { readonly what: string; readonly own: readonly string[] },
  exit: number,
  never: string,
  passed: (exited: number) => string,
): ItemVerdict {
  const failed = eachPassesOnce(selected, cellsAre.what, cellsAre.own);
  if (failed) return failed;
  const exited = selected.filter((cell) => cell.attempts.some((a) => a.exit_code === exit)).length;
  if (exited === 0) return { status: 'FAIL', ...decidedBy(selected), detail: never };
  return { status: 'PASS', ...decidedBy(selected), detail: passed(exited) };
}

/**
 * Issue 33's PostgreSQL full-disk line: the server's data directory (the target and the journal on
 * it, scenarios/storage/postgres-full-disk.yaml) on a size-limited filesystem filled after every
 * journal write and the target's commit. Each cell PASSes with storage-full-refused (exit 18 naming
 * the server's part and DISK_FULL, or a completed run), atomic-visibility and storage-full-lease
 * PASS and one mutation after the retry; at least one cell must have been refused (exit 18), or the
 * line never saw the server's full disk. Cells that could not mount a tmpfs are UNVERIFIED, and so is
 * the line; none at all is FAIL.
 */
export const fullDiskServerItem: AcceptanceItem = {
  id: 'full-disk-server-refused-then-one',
  text: 'a full disk under the PostgreSQL data directory (target and journal on it) after every journal write and the target commit: exit 18 naming the part and DISK_FULL, nothing half-written, the lease not left behind, and once space is freed one retry lands exactly one mutation',
  evaluate(cells) {
    const filled = cells.filter((cell) => cell.fault.kind === 'full-disk' && cell.fault.storage === 'server');
    return seenExiting(
      filled,
      { what: 'full-disk (server)', own: [STORAGE_FULL_REFUSED, ATOMIC_VISIBILITY, STORAGE_FULL_LEASE] },
      18,
      'no full-disk cell under the server was refused (exit 18): the full disk never met a write',
      (refused) =>
        `${filled.length} full-disk cells under the server PASS: ${refused} stopped with exit 18 naming the part and DISK_FULL, the rest had nothing left to write that needed a new block; one mutation each`,
    );
  },
};

/**
 * Issue 33's PostgreSQL corruption line: the journal's rows changed behind its back by the server's
 * superuser after a kill at every transition (scenarios/storage/postgres-journal-corruption.yaml).
 * Each cell PASSes with journal-corruption-detected PASS (exit 19 whenever the change reached what
 * the run reads, never 22 or 29) and one mutation after the restore; at least one retry must have
 * exited 19, or the line never saw its checksums at work. None at all is FAIL.
 */
export const journalCorruptionServerItem: AcceptanceItem = {
  id: 'journal-corruption-server-detected',
  text: 'a PostgreSQL journal row changed behind the journal (state, version, epochs, intent digest, history) is never a second mutation, and is exit 19 JOURNAL_CORRUPT whenever the change reaches what the run reads, never an intent conflict or a divergence',
  evaluate(cells) {
    const changed = cells.filter(
      (cell) => cell.fault.kind === 'journal-corruption' && cell.fault.shape === 'fields',
    );
    return seenExiting(
      changed,
      { what: 'journal-corruption (fields)', own: [JOURNAL_CORRUPTION_DETECTED] },
      19,
      'no retry met a changed row with exit 19: the checksums were never seen at work',
      (detected) =>
        `${changed.length} cells with a journal row changed behind its back PASS: ${detected} retries exited 19, the rest ran normally (the change was in history they do not read; restored after); one mutation each`,
    );
  },
};
