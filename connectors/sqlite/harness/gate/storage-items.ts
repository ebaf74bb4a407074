import type { CellEvidence } from '../../../../harness/evidence/evidence-types.ts';
import {
  ATOMIC_VISIBILITY,
  JOURNAL_CORRUPTION_DETECTED,
  STORAGE_FULL_LEASE,
  STORAGE_FULL_REFUSED,
  STORAGE_READ_ONLY_REFUSED,
  STORAGE_READ_ONLY_UNTOUCHED,
} from '../../../../harness/evidence/check-names.ts';
import type { AcceptanceItem, ItemVerdict } from '../../../../harness/gate/acceptance-item.ts';
import { decidedBy, eachPassesOnce } from '../../../../harness/gate/cell-verdicts.ts';

/** The cells of `kind`, each PASS with every named check PASS and one mutation; else the line's verdict. */
function judged(
  cells: readonly CellEvidence[],
  kind: string,
  checks: readonly string[],
): { selected: CellEvidence[]; verdict: ItemVerdict | null } {
  const selected = cells.filter((cell) => cell.fault.kind === kind);
  return { selected, verdict: eachPassesOnce(selected, kind, checks) };
}

/** The PASS of a storage line whose fault refuses writes: how many cells stopped with its exit, on which storages. */
function refusedPass(
  selected: readonly CellEvidence[],
  kind: string,
  exit: number,
  rest: string,
): ItemVerdict {
  const refused = selected.filter((cell) => cell.attempts.some((a) => a.exit_code === exit)).length;
  const storages = [...new Set(selected.map((cell) => String(cell.fault.storage)))].sort().join(' and ');
  return {
    status: 'PASS',
    ...decidedBy(selected),
    detail: `${selected.length} ${kind} cells PASS on the ${storages}: ${refused} stopped with exit ${exit} naming the file and the cause, ${rest}; one mutation each`,
  };
}

/**
 * A storage line whose fault refuses writes, decided by the cells of `kind`: each PASS with every
 * one of `checks` PASS and one mutation (judged), then the PASS says how many stopped with `exit`
 * and what `rest` of them did (refusedPass).
 */
function refusingItem(
  id: string,
  text: string,
  cellsOf: { readonly kind: string; readonly checks: readonly string[] },
  refusal: { readonly exit: number; readonly rest: string },
): AcceptanceItem {
  return {
    id,
    text,
    evaluate(cells) {
      const { selected, verdict } = judged(cells, cellsOf.kind, cellsOf.checks);
      return verdict ?? refusedPass(selected, cellsOf.kind, refusal.exit, refusal.rest);
    },
  };
}

/**
 * Issue 33's full-disk line, for the routes of the power-loss line (target and journal in local
 * files): decided by the full-disk cells (scenarios/storage/). Each PASSes with its
 * storage-full-refused (exit 18 naming the file and the cause, or a completed run),
 * atomic-visibility and storage-full-lease checks PASS and one mutation after the retry. No cell is
 * FAIL; no cell at all is FAIL; cells that could not mount a tmpfs are UNVERIFIED, and so is the line.
 */
export const fullDiskItem = refusingItem(
  'full-disk-refused-then-one',
  'a full disk under the journal or the target at every transition: exit 18 naming the file and the cause, nothing half-written, the lease not left behind, and once space is freed one retry lands exactly one mutation',
  { kind: 'full-disk', checks: [STORAGE_FULL_REFUSED, ATOMIC_VISIBILITY, STORAGE_FULL_LEASE] },
  { exit: 18, rest: 'the rest had nothing left to write' },
);

/**
 * Issue 33's corruption line, for the same routes: decided by the journal-corruption cells
 * (scenarios/storage/). Each PASSes with its
 * journal-corruption-detected check PASS (19 whenever the damage reached what the run reads, a
 * normal outcome otherwise, never anything else) and one mutation after the journal's restore.
 */
export const journalCorruptionItem: AcceptanceItem = {
  id: 'journal-corruption-detected',
  text: 'a journal damaged between attempts (row bytes, header, truncation) is never a second mutation, and is exit 19 JOURNAL_CORRUPT whenever the damage reaches what the run reads, never locked, an intent conflict or a divergence',
  evaluate(cells) {
    const { selected, verdict } = judged(cells, 'journal-corruption', [JOURNAL_CORRUPTION_DETECTED]);
    if (verdict) return verdict;
    const detected = selected.filter((cell) => cell.attempts.some((a) => a.exit_code === 19)).length;
    return {
      status: 'PASS',
      ...decidedBy(selected),
      detail: `${selected.length} journal-corruption cells PASS: ${detected} retries met the damage and exited 19, the rest ran normally; one mutation each`,
    };
  },
};

/**
 * Issue 33's read-only line, for the same routes: decided by the read-only-disk cells
 * (scenarios/storage/). Each PASSes with its storage-read-only-refused (exit 31 naming the file,
 * EROFS and how to lift it, or a completed run), storage-read-only-untouched (the target's rows as
 * before, no lease of its own), atomic-visibility checks PASS and one mutation after the
 * read-write retry. Cells that could not mount or remount a tmpfs are UNVERIFIED, and so is the line.
 */
export const readOnlyDiskItem = refusingItem(
  'read-only-refused-then-one',
  'a journal or target on a file system remounted read-only after a kill at every transition: exit 31 naming the file, the cause and how to lift it, the target untouched and no lease left behind, and once remounted read-write one retry lands exactly one mutation',
  {
    kind: 'read-only-disk',
    checks: [STORAGE_READ_ONLY_REFUSED, STORAGE_READ_ONLY_UNTOUCHED, ATOMIC_VISIBILITY],
  },
  { exit: 31, rest: 'the rest needed no write there' },
);
