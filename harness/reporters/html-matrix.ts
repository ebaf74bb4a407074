import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import type { SafeHtml } from './html-escape.ts';
import { html, verdictClass } from './html-escape.ts';
import { cellTag, compareIds, faultLabel, verdictSymbol } from './cell-summary.ts';

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

/** Sensitivity: every unsafe variant and whether some cell caught it (FAIL is the wanted outcome there). */
export function renderSensitivity(evidence: Evidence, anchors: ReadonlyMap<string, string>): SafeHtml {
  if (evidence.sensitivity.length === 0)
    return html`<p class="muted">
      No unsafe variant ran, so the checks' power to catch a duplicate was not measured.
    </p>`;
  return html`<table>
    <thead>
      <tr>
        <th>unsafe variant</th>
        <th>caught</th>
        <th>cells failed / run (not run once caught)</th>
        <th>example</th>
      </tr>
    </thead>
    <tbody>
      ${evidence.sensitivity.map(
        (record) =>
          html`<tr class="${record.caught ? '' : 'sensitivity-missed'}">
            <td><code>${record.variant}</code></td>
            <td>${record.caught ? 'yes' : 'NO: the variant survived'}</td>
            <td>
              ${record.cells_failed} /
              ${record.cells_run}${record.cells_skipped ? ` (+${record.cells_skipped})` : ''}
            </td>
            <td>
              ${
                record.example_cell
                  ? html`<a href="#${anchors.get(record.example_cell) ?? ''}"
                      ><code>${record.example_cell}</code></a
                    >`
                  : '–'
              }
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
