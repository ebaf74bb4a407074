import type {
  AttemptRecord,
  CellEvidence,
  FaultRecord,
  JournalSnapshot,
} from '../evidence/evidence-types.ts';
import type { SafeHtml } from './html-escape.ts';
import { html } from './html-escape.ts';
import { formatDuration } from './cell-summary.ts';

/**
 * A cell's timeline: one lane per worker attempt (bar length = the attempt's duration, on one
 * scale per cell), the fault markers on the lane the fault hit, and a journal lane listing every
 * transition with its version, lease epoch and reason (fence checks highlighted).
 */
export function renderTimeline(cell: CellEvidence): SafeHtml {
  const longest = Math.max(1, ...cell.attempts.map((attempt) => attempt.duration_ms));
  const markers = faultMarkersByAttempt(cell.fault, cell.attempts);
  const lanes = cell.attempts.map((attempt, index) =>
    renderAttempt(attempt, index, longest, markers.get(index) ?? []),
  );
  return html`<div class="timeline">
    ${lanes.length === 0 ? html`<p class="muted">No worker attempt ran in this cell.</p>` : lanes}
    ${renderJournal(cell.journal)}
  </div>`;
}

const at = (point: string | undefined, hit?: number): string =>
  point ? ` at ${point}${typeof hit === 'number' ? ` #${hit}` : ''}` : '';

/**
 * Markers per attempt index: each killed attempt gets a SIGKILL marker at the point the plan
 * aimed for (the first kill at `fault.point`, the second at `fault.recovery_point`); a pause,
 * network or server fault marks the attempt it hit (`fault.attempt`, 1-based, else a guess by role).
 */
function faultMarkersByAttempt(
  fault: FaultRecord,
  attempts: readonly AttemptRecord[],
): Map<number, SafeHtml[]> {
  const markers = new Map<number, SafeHtml[]>();
  const add = (index: number, marker: SafeHtml): void => {
    if (index >= 0) markers.set(index, [...(markers.get(index) ?? []), marker]);
  };
  const planned = [at(fault.point, fault.hit), at(fault.recovery_point)];
  let kills = 0;
  attempts.forEach((attempt, index) => {
    if (attempt.signal !== 'SIGKILL') return;
    const where = fault.kind === 'crash' ? (planned[kills] ?? '') : '';
    const delay =
      fault.kind === 'crash' && kills === 0 && typeof fault.delay_ms === 'number'
        ? typeof fault.after_point === 'string'
          ? ` ${fault.delay_ms} ms after ${fault.after_point} (${String(fault.landed ?? 'not run')})`
          : ` after ${fault.delay_ms} ms`
        : '';
    add(index, html`<span class="marker kill">✕ SIGKILL${where}${delay}</span>`);
    kills++;
  });
  const named = typeof fault.attempt === 'number' ? fault.attempt - 1 : -1;
  const hit =
    named >= 0 && named < attempts.length ? named : attempts.findIndex((a) => a.role.startsWith('paused'));
  const target = hit >= 0 ? hit : 0;
  if (fault.kind === 'pause')
    add(
      target,
      html`<span class="marker pause"
        >⏸ SIGSTOP${at(fault.point, fault.hit)}, SIGCONT after the lease expired</span
      >`,
    );
  else if (fault.kind === 'network')
    add(
      target,
      html`<span class="marker network"
        >⚡ network ${[fault.toxic, fault.phase].filter(Boolean).join(' ')}${at(fault.point, fault.hit)}</span
      >`,
    );
  else if (fault.kind === 'server')
    add(
      target,
      html`<span class="marker kill"
        >⚡ ${fault.server ?? 'server'} killed${at(fault.point, fault.hit)}</span
      >`,
    );
  else if (fault.kind === 'crash' && kills === 0)
    add(
      0,
      html`<span class="marker kill"
        >✕ planned SIGKILL${planned[0]}${fault.recovery_point ? `, then${planned[1]},` : ''} not reached</span
      >`,
    );
  return markers;
}

function renderAttempt(
  attempt: AttemptRecord,
  index: number,
  longest: number,
  markers: readonly SafeHtml[],
): SafeHtml {
  const width = Math.max(1, Math.round((attempt.duration_ms / longest) * 100));
  const outcome = attempt.signal
    ? 'killed'
    : attempt.exit_code === 0
      ? 'exit-ok'
      : attempt.exit_code === null
        ? ''
        : 'failed';
  const ended = attempt.signal
    ? `signal ${attempt.signal}`
    : attempt.exit_code === null
      ? 'no exit code'
      : `exit ${attempt.exit_code}`;
  return html`<div class="lane attempt">
    <div class="lane-label">
      attempt ${index + 1} · <b>${attempt.role}</b>
      <small>pid ${attempt.pid} · ${formatDuration(attempt.duration_ms)}</small>
    </div>
    <div class="track">
      <div class="bar ${outcome}" style="width:${width}%"></div>
      <div class="markers">
        ${markers}
        <span class="marker">${ended}</span>
        ${attempt.error_code ? html`<span class="marker">${attempt.error_code}</span>` : null}
        <span class="marker">last point: <code>${attempt.last_point ?? 'none'}</code></span>
      </div>
    </div>
  </div>`;
}

function renderJournal(journal: JournalSnapshot | null): SafeHtml {
  if (!journal)
    return html`<div class="lane journal">
      <div class="lane-label">journal</div>
      <div class="track muted">no journal snapshot</div>
    </div>`;
  const start = journal.history[0]?.at_ms ?? 0;
  const steps = journal.history.map((record, index) => {
    const fence = record.reason.startsWith('fence:');
    const from = record.from_state ? `${record.from_state}→` : '';
    return html`${index > 0 ? html`<span class="arrow">›</span>` : null}<span
        class="step ${fence ? 'fence' : ''} to-${record.to_state}"
        title="${record.kind}, +${record.at_ms - start} ms"
        ><b>v${record.version}</b> ${from}${record.to_state}
        <small>${record.reason}${record.lease_epoch === null ? '' : ` · e${record.lease_epoch}`}</small></span
      >`;
  });
  return html`<div class="lane journal">
    <div class="lane-label">
      journal
      <small
        >final ${journal.final_state ?? 'none'} · v${journal.version ?? '–'} ·
        ${journal.history_legal ? 'history legal' : 'ILLEGAL history'}</small
      >
    </div>
    <div class="track steps">${steps.length ? steps : html`<span class="muted">no history</span>`}</div>
  </div>`;
}
