import type { AttemptRecord, CellEvidence } from '../evidence/evidence-types.ts';

/**
 * A FAIL cell told in plain sentences, in the manner of Elle's explanations: what each attempt
 * did and how it ended, who wrote what to the journal (by lease epoch), what the target holds by
 * the harness's own audit, and which check decided. Built from the cell's evidence only; values
 * are ids, states, counts and check details (already value-free), never rows.
 */
export function failNarrative(cell: CellEvidence): string[] {
  if (cell.verdict !== 'FAIL') return [];
  return [
    ...cell.attempts.map((attempt, index) => attemptSentence(attempt, index, cell)),
    ...journalSentences(cell),
    targetSentence(cell),
    decidedBy(cell),
  ].filter((line) => line.length > 0);
}

function attemptSentence(attempt: AttemptRecord, index: number, cell: CellEvidence): string {
  const who = `Attempt ${index + 1} (${attempt.role}, pid ${attempt.pid})`;
  const point = attempt.last_point ? ` at ${attempt.last_point}` : ' before its first fault point';
  const claim =
    attempt.mutated === true
      ? ', claiming its own write is what the target holds'
      : attempt.mutated === false
        ? ', claiming no write of its own'
        : '';
  if (attempt.signal === 'SIGKILL') return `${who} was killed (SIGKILL)${point}.`;
  if (attempt.signal) return `${who} ended by ${attempt.signal}${point}.`;
  const paused = cell.fault.kind === 'pause' && attempt.role.startsWith('paused');
  const stop = paused ? ` was stopped (SIGSTOP) at ${String(cell.fault.point)}, resumed later, and` : '';
  if (attempt.exit_code === 0)
    return `${who}${stop} exited 0${attempt.status ? ` reporting ${attempt.status}` : ''}${claim}.`;
  const code = attempt.error_code ? ` with ${attempt.error_code}` : '';
  return `${who}${stop} failed (exit ${attempt.exit_code ?? 'unknown'})${code}, last point${point.replace(' at', '')}.`;
}

/** One sentence per lease epoch: the journal records written under it, in order. */
function journalSentences(cell: CellEvidence): string[] {
  const history = cell.journal?.history ?? [];
  if (history.length === 0) return ['The journal recorded nothing for the operation.'];
  const runs: { epoch: number | null; steps: string[] }[] = [];
  for (const record of history) {
    const step = `v${record.version} ${record.to_state} (${record.reason})`;
    const last = runs.at(-1);
    if (last && (record.lease_epoch === null || record.lease_epoch === last.epoch)) last.steps.push(step);
    else runs.push({ epoch: record.lease_epoch, steps: [step] });
  }
  const lines = runs.map(
    (run) =>
      `${run.epoch === null ? 'Without a lease' : `Under lease epoch ${run.epoch}`} the journal recorded ${run.steps.join(', ')}.`,
  );
  const journal = cell.journal!;
  lines.push(
    `The journal ended at ${journal.final_state ?? 'no state'} v${journal.version ?? '–'}; its history is ${journal.history_legal ? 'legal' : 'ILLEGAL'}.`,
  );
  return lines;
}

function targetSentence(cell: CellEvidence): string {
  const target = cell.target;
  if (!target) return 'The harness has no reading of the target.';
  const once = target.mutations === 1 ? 'once' : `${target.mutations} times`;
  const parity = target.row_parity ? 'matching the source' : 'NOT matching the source';
  return `The target holds ${target.row_count} rows for ${target.source_row_count} expected, ${parity}: by the harness's own audit the mutation landed ${once}, with ${target.duplicate_rows} duplicate rows.`;
}

function decidedBy(cell: CellEvidence): string {
  const failed = cell.checks.filter((check) => check.verdict === 'FAIL');
  if (failed.length === 0) return 'No check recorded FAIL.';
  return `Decided by ${failed.map((check) => `${check.name} (${check.detail})`).join('; ')}.`;
}
