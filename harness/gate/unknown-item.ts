import { COMMITTED_STATES, isCommitState } from '../../src/contracts/states.ts';
import type { CellEvidence, JournalSnapshot } from '../evidence/evidence-types.ts';
import type { AcceptanceItem } from './acceptance-item.ts';
import { allPass, decidedBy, mutations } from './cell-verdicts.ts';

/**
 * Whether a worker's own executor moved this journal to COMMIT_UNKNOWN: a transition record the
 * harness did not write itself (a staged record carries `staged: true`, e.g. the recovery cells'
 * lost fence answer on a target that always answers).
 */
export function reachedUnknown(journal: JournalSnapshot | null | undefined): boolean {
  return (journal?.history ?? []).some(
    (record) =>
      record.to_state === 'COMMIT_UNKNOWN' && record.kind === 'transition' && record.staged !== true,
  );
}

/** A cell in which a run, not the harness, reached an unknown outcome. */
export function realUnknownCell(cell: CellEvidence): boolean {
  return reachedUnknown(cell.journal) || reachedUnknown(cell.loss?.fork_journal);
}

/**
 * An attempt claimed success (exit 0) although the journal it used holds no committed state (a
 * forked deployment's attempt is backed by its own journal). A shadow cell's legacy or shadow
 * write is not a protocol run and is left to the shadow item.
 */
function successWithoutProof(cell: CellEvidence): boolean {
  // Legacy and shadow writes (shadow cells, the Airflow example in shadow mode) run no protocol
  // journal: their success claims nothing.
  if (cell.fault.kind === 'shadow' || cell.airflow?.mode === 'shadow') return false;
  return cell.attempts.some((attempt) => {
    if (attempt.exit_code !== 0) return false;
    const journal = attempt.journal === 'fork' ? (cell.loss?.fork_journal ?? null) : cell.journal;
    const final = journal?.final_state;
    return journal !== null && !(isCommitState(final) && COMMITTED_STATES.has(final));
  });
}

/**
 * "An unknown target outcome never becomes success or automatic replay", decided by the cells in
 * which a run itself reached COMMIT_UNKNOWN (a target that cannot prove the outcome: capability
 * `none`, or a fence that answered unknown): every one PASSes with at most one mutation from the
 * target's rows (the journal-history checker refuses COMMIT_UNKNOWN left without an operator's
 * audit record). Zero such cells is FAIL: staged COMMIT_UNKNOWN entries do not count. Over all
 * cells, no attempt exited 0 without a committed journal state.
 */
export const unknownNeverSuccess: AcceptanceItem = {
  id: 'unknown-never-success',
  text: 'unknown target outcome never becomes success or automatic replay',
  evaluate(cells) {
    const unknown = cells.filter(realUnknownCell);
    if (unknown.length === 0)
      return {
        status: 'FAIL',
        cells: 0,
        detail: 'no cell reached a real unknown outcome (staged COMMIT_UNKNOWN entries do not count)',
      };
    const failed = allPass(unknown, 'unknown-outcome');
    if (failed) return failed;
    const claimed = cells.filter(successWithoutProof);
    if (claimed.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(claimed),
        detail: `${claimed[0]!.id}: an attempt exited 0 without a committed journal state`,
      };
    const kinds = [...new Set(unknown.map((cell) => cell.fault.kind))].sort().join(', ');
    return {
      status: 'PASS',
      ...decidedBy(unknown),
      detail: `${unknown.length} cells reached COMMIT_UNKNOWN in a run (${kinds}): each PASS, max ${Math.max(...unknown.map(mutations))} mutation, never left without an operator; no success without proof in ${cells.length} cells`,
    };
  },
};
