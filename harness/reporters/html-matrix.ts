import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import type { SafeHtml } from './html-escape.ts';
import { html, verdictClass } from './html-escape.ts';
import { cellTag, compareIds, faultLabel, verdictSymbol } from './cell-summary.ts';
import { variantViews } from './variant-states.ts';

/**
 * The fault points × scenarios matrix. Rows are fault points (see faultLabel), columns are scenarios; each chip is a cell coloured by its verdict and links to it.
 * `anchors` maps a cell id to its element id in the cell list.
 */
export function renderMatrix(
  cells: readonly CellEvidence[],
  anchors: ReadonlyMap<string, string>,
  column: (cell: CellEvidence) => string = (cell) => cell.scenario,
  heading = 'fault point',
): SafeHtml {
  if (cells.length === 0) return html`<p class="muted">No cells.</p>`;
  const scenarios = [...new Set(cells.map(column))].sort(compareIds);
  const rows = new Map<string, Map<string, CellEvidence[]>>();
  for (const cell of cells) {
    const label = faultLabel(cell);
    const row = rows.get(label) ?? new Map<string, CellEvidence[]>();
    row.set(column(cell), [...(row.get(column(cell)) ?? []), cell]);
    rows.set(label, row);
  }
  const labels = [...rows.keys()].sort(compareIds);
  return html`<div class="matrix-wrap">
    <table class="matrix">
      <thead>
        <tr>
          <th>${heading}</th>
          ${scenarios.map((scenario) => html`<th>${scenario}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${labels.map(
          (label) =>
            html`<tr>
              <td class="point">${label}</td>
              ${scenarios.map(
                (scenario) =>
                  html`<td>${(rows.get(label)?.get(scenario) ?? []).map((cell) => chip(cell, anchors))}</td>`,
              )}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function chip(cell: CellEvidence, anchors: ReadonlyMap<string, string>): SafeHtml {
  const variant = cell.variant ? ` (variant ${cell.variant})` : '';
  // Depth-2 cells are many per row (one per recovery point): a small square each, the id on hover.
  const mini = cell.fault.kind === 'crash' && Boolean(cell.fault.recovery_point);
  return html`<a
    class="chip ${verdictClass(cell.verdict)}${mini ? ' mini' : ''}"
    href="#${anchors.get(cell.id) ?? ''}"
    title="${cell.id}${variant}: ${cell.verdict}"
    >${mini ? verdictSymbol(cell.verdict) : cellTag(cell)}</a
  >`;
}

/** The badge look of a variant state: killed is the wanted outcome, survived a failure, not run grey. */
const STATE_LOOK = { killed: 'PASS', survived: 'FAIL', 'not-run': 'UNVERIFIED' } as const;
const STATE_TEXT = { killed: 'killed', survived: 'SURVIVED', 'not-run': 'not run' } as const;

/**
 * Sensitivity: every unsafe variant with its state (killed / SURVIVED / not run), what it breaks,
 * which checks killed it and in how many of the cells that ran, or why it did not run.
 */
export function renderSensitivity(evidence: Evidence, anchors: ReadonlyMap<string, string>): SafeHtml {
  if (evidence.sensitivity.length === 0)
    return html`<p class="muted">
      No unsafe variant ran, so the checks' power to catch a duplicate was not measured.
    </p>`;
  return html`<div class="table-wrap">
    <table class="variants">
      <thead>
        <tr>
          <th scope="col">unsafe variant: what it breaks</th>
          <th scope="col">state</th>
          <th scope="col">killed by / why not</th>
          <th scope="col">example</th>
        </tr>
      </thead>
      <tbody>
        ${variantViews(evidence).map(
          (view) =>
            html`<tr
              class="${view.state === 'survived' ? 'sensitivity-missed' : ''}"
              data-state="${view.state}"
            >
              <th scope="row">
                <code>${view.variant}</code>${view.breaks ? html`<br /><small>${view.breaks}</small>` : null}
              </th>
              <td>
                <span class="badge ${verdictClass(STATE_LOOK[view.state])}">${STATE_TEXT[view.state]}</span>
              </td>
              <td>
                ${
                  view.state === 'killed'
                    ? html`${view.killedBy.map((name) => html`<code>${name}</code> `)}<br />`
                    : null
                }${view.counts}${view.reason ? html`<br /><small>${view.reason}</small>` : null}
              </td>
              <td>
                ${
                  view.example
                    ? html`<a href="#${anchors.get(view.example) ?? ''}"><code>${view.example}</code></a>`
                    : '–'
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}
