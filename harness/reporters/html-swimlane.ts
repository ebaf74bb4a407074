import type { CellEvidence } from '../evidence/evidence-types.ts';
import type { SafeHtml } from './html-escape.ts';
import { html } from './html-escape.ts';

const LABEL = 150;
const WIDTH = 900;
const LANE = 26;
const fmt = (n: number) => String(Math.round(n));

/**
 * A cell on one real time axis (the cell's clock): a lane per worker attempt from its start to its
 * end (✕ at a SIGKILL), the journal's writes at their times, and the target lane with the fence
 * answers recorded on the journal and, at the end, the audit's mutation count. Null when the
 * evidence has no attempt start times (written before they were recorded).
 */
export function renderSwimlane(cell: CellEvidence): SafeHtml | null {
  const attempts = cell.attempts;
  if (attempts.length === 0 || attempts.some((a) => typeof a.started_at_ms !== 'number')) return null;
  const history = cell.journal?.history ?? [];
  const starts = attempts.map((a) => a.started_at_ms!);
  const ends = attempts.map((a) => a.started_at_ms! + a.duration_ms);
  const t0 = Math.min(...starts, ...history.map((r) => r.at_ms));
  const t1 = Math.max(...ends, ...history.map((r) => r.at_ms), t0 + 1);
  const x = (t: number) => LABEL + ((t - t0) / (t1 - t0)) * (WIDTH - LABEL - 20);
  const lanes = attempts.length + 2;
  const height = lanes * LANE + 24;
  const journalY = attempts.length * LANE + 14;
  const targetY = journalY + LANE;
  const bars = attempts.map((attempt, index) => {
    const y = index * LANE + 14;
    const start = x(attempt.started_at_ms!);
    const end = x(attempt.started_at_ms! + attempt.duration_ms);
    const outcome = attempt.signal ? 'killed' : attempt.exit_code === 0 ? 'exit-ok' : 'failed';
    const ended = attempt.signal ? `killed by ${attempt.signal}` : `exit ${attempt.exit_code ?? '?'}`;
    return html`<g class="sw-attempt ${outcome}">
      <text x="4" y="${fmt(y + 4)}">${index + 1} ${attempt.role}</text>
      <rect x="${fmt(start)}" y="${fmt(y - 6)}" width="${fmt(Math.max(2, end - start))}" height="12"
        ><title>
          attempt ${index + 1} (${attempt.role}): +${attempt.started_at_ms! - t0} ms for
          ${attempt.duration_ms} ms, ${ended}, last point ${attempt.last_point ?? 'none'}
        </title></rect
      >${attempt.signal === 'SIGKILL' ? html`<text class="kill" x="${fmt(end + 3)}" y="${fmt(y + 5)}">✕</text>` : null}
    </g>`;
  });
  const writes = history.map((record) => {
    const at = x(record.at_ms);
    const fence = record.fence_status ?? (record.reason.startsWith('fence:') ? record.reason.slice(6) : null);
    return html`<g class="sw-write${record.staged ? ' staged' : ''}">
        <line x1="${fmt(at)}" x2="${fmt(at)}" y1="${fmt(journalY - 7)}" y2="${fmt(journalY + 7)}"
          ><title>
            v${record.version} ${record.from_state ?? ''}→${record.to_state} (${record.reason})
            ${record.lease_epoch === null ? '' : `epoch ${record.lease_epoch}`} at +${record.at_ms - t0} ms
          </title></line
        >
      </g>
      ${fence ? html`<circle class="sw-fence" cx="${fmt(at)}" cy="${fmt(targetY)}" r="4"><title>fence ${fence} (v${record.version}, +${record.at_ms - t0} ms)</title></circle>` : null}`;
  });
  const target = cell.target;
  const final = target
    ? `${target.mutations} mutation${target.mutations === 1 ? '' : 's'}, ${target.row_count}/${target.source_row_count} rows`
    : 'not read';
  return html`<figure class="swimlane">
    <div class="diagram-wrap">
      <svg
        viewBox="0 0 ${WIDTH} ${height}"
        role="img"
        aria-label="swimlane: ${attempts.length} attempts, ${history.length} journal writes over ${t1 - t0} ms; target ${final}"
      >
        ${bars}
        <text x="4" y="${fmt(journalY + 4)}">journal</text>
        <line
          class="sw-axis"
          x1="${LABEL}"
          x2="${WIDTH - 20}"
          y1="${fmt(journalY)}"
          y2="${fmt(journalY)}"
        ></line>
        <text x="4" y="${fmt(targetY + 4)}">target</text>
        <line
          class="sw-axis"
          x1="${LABEL}"
          x2="${WIDTH - 20}"
          y1="${fmt(targetY)}"
          y2="${fmt(targetY)}"
        ></line>
        ${writes}
        <text
          class="sw-final${target && target.mutations !== 1 ? ' bad' : ''}"
          x="${WIDTH - 20}"
          y="${fmt(targetY + 18)}"
          text-anchor="end"
        >
          end: ${final}
        </text>
        <text class="sw-scale" x="${LABEL}" y="${fmt(height - 2)}">0 ms</text>
        <text class="sw-scale" x="${WIDTH - 20}" y="${fmt(height - 2)}" text-anchor="end">${t1 - t0} ms</text>
      </svg>
    </div>
  </figure>`;
}
