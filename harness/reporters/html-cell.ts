import type { CellEvidence } from '../evidence/evidence-types.ts';
import type { SafeHtml } from './html-escape.ts';
import { html, verdictClass } from './html-escape.ts';
import { renderTimeline } from './html-timeline.ts';
import { renderSwimlane } from './html-swimlane.ts';
import { failNarrative } from './fail-narrative.ts';
import { cellPlace, placeKey } from './protocol-places.ts';
import { describeDifference } from '../checkers/first-difference.ts';
import { cellReason, formatDuration } from './cell-summary.ts';

/**
 * One cell of the report: a heading summary, and its details (narrative for a FAIL, swimlane,
 * timeline, checks, replay command). With `lazy` given, a collapsed cell's details go there
 * instead (packed once for the page, `html-lazy-bodies.ts`) and the page's script inserts them
 * when the cell is first opened; an open cell always carries its details in place.
 */
export function renderCell(cell: CellEvidence, anchor: string, lazy: Map<string, SafeHtml> | null): SafeHtml {
  const open = cell.verdict !== 'PASS' && !cell.variant;
  const place = cellPlace(cell);
  const body = renderCellBody(cell);
  const deferred = !open && lazy !== null;
  if (deferred) lazy.set(anchor, body);
  return html`<details
    class="cell ${verdictClass(cell.verdict)}"
    id="${anchor}"
    data-verdict="${cell.variant ? 'VARIANT' : cell.verdict}"
    ${place && !cell.variant ? html` data-place="${placeKey(place)}"` : ''}
    ${open ? html` open` : ''}
    ${deferred ? html` data-lazy` : ''}
  >
    <summary>
      <h3 class="cell-title">
        <span class="badge ${verdictClass(cell.verdict)}">${cell.verdict}</span><code>${cell.id}</code>
      </h3>
      <span class="muted">${cell.scenario}${cell.variant ? ` · unsafe variant ${cell.variant}` : ''}</span>
      <span class="reason">${cellReason(cell)}</span>
    </summary>
    ${deferred ? '' : body}
  </details>`;
}

function renderNarrative(cell: CellEvidence): SafeHtml | null {
  const lines = failNarrative(cell);
  if (lines.length === 0) return null;
  return html`<div class="narrative">
    <p><b>What happened</b></p>
    <ol>
      ${lines.map((line) => html`<li>${line}</li>`)}
    </ol>
  </div>`;
}

function renderCellBody(cell: CellEvidence): SafeHtml {
  const target = cell.target;
  const stats = target
    ? html`<span class="stat ${target.mutations > 1 ? 'bad' : ''}"
          ><b>${target.mutations}</b>target mutations</span
        >
        <span class="stat ${target.duplicate_rows > 0 ? 'bad' : ''}"
          ><b>${target.duplicate_rows}</b>duplicate rows</span
        >
        <span class="stat ${target.row_parity ? '' : 'bad'}"
          ><b>${target.row_count}/${target.source_row_count}</b>rows
          (target/source)${target.row_parity ? '' : ', NO parity'}</span
        >${
          target.first_difference
            ? html` <span class="stat bad"
                >first difference at ${describeDifference(target.first_difference)}</span
              >`
            : ''
        }`
    : html`<span class="stat"><b>–</b>no target snapshot</span>`;
  return html`<div class="cell-body">
    <div>
      ${stats}<span class="stat"><b>${formatDuration(cell.duration_ms)}</b>cell duration</span>
    </div>
    ${renderNarrative(cell)} ${renderSwimlane(cell)} ${renderTimeline(cell)}
    <table class="checks">
      <thead>
        <tr>
          <th>check</th>
          <th>verdict</th>
          <th>detail</th>
        </tr>
      </thead>
      <tbody>
        ${cell.checks.map(
          (check) =>
            html`<tr>
              <td>${check.name}</td>
              <td><span class="badge ${verdictClass(check.verdict)}">${check.verdict}</span></td>
              <td>${check.detail}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p>Reproduce this cell:</p>
    <div>
      <pre class="repro"><code>${cell.reproduce}</code></pre>
      <button type="button" class="copy">copy</button>
    </div>
  </div> `;
}
