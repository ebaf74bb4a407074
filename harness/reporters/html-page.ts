import type { Evidence } from '../evidence/evidence-types.ts';
import type { SafeHtml } from './html-escape.ts';
import { html, trusted, verdictClass } from './html-escape.ts';
import { REPORT_CSS } from './html-style.ts';
import type { Integrity } from './integrity.ts';
import { REPORT_JS } from './html-script.ts';
import { renderMatrix, renderSensitivity } from './html-matrix.ts';
import { renderDiagram } from './html-diagram.ts';
import { renderCell } from './html-cell.ts';
import { packLazyBodies } from './html-lazy-bodies.ts';
import { killLandingLines } from './kill-landings.ts';
import { renderGateBox } from './html-gate.ts';
import { renderNotVerified } from './html-not-verified.ts';
import { sensitivityLine, variantCellsRan, variantViews } from './variant-states.ts';
import type { ReportGate } from './report-gate.ts';
import { failuresFirst, formatDuration, routeCells, variantCells, verdictCounts } from './cell-summary.ts';

export interface RenderOptions {
  /**
   * Collapsed cells' details are packed once for the page (gzip + base64, `html-lazy-bodies.ts`)
   * and inserted when a cell is first opened (default), so a 2,000-cell report is neither 2,000
   * laid-out timelines nor their bytes. `false` renders every cell's details in place (the
   * baseline the size benchmark compares against).
   */
  readonly lazy?: boolean;
}

/** Renders the whole report as one self-contained HTML document (inline CSS and JS, no network). */
export function renderHtmlReport(
  evidence: Evidence,
  integrity?: Integrity,
  gate: ReportGate | null = null,
  options: RenderOptions = {},
): string {
  const lazy = (options.lazy ?? true) ? new Map<string, SafeHtml>() : null;
  // Route cells failures first, then the unsafe-variant cells (whose FAIL is the wanted outcome).
  const ordered = [...failuresFirst(routeCells(evidence)), ...failuresFirst(variantCells(evidence))];
  const anchors = new Map(ordered.map((cell, index) => [cell.id, `cell-${index + 1}`]));
  const counts = verdictCounts(routeCells(evidence));
  const variants = variantCells(evidence).length;
  const page = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta
          http-equiv="Content-Security-Policy"
          content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
        />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>
          ${integrity?.headline ? 'NOT VERIFIED · ' : ''}dpone certify ${evidence.route}: cells
          ${evidence.verdict}, ${gate?.enabled ? 'may be enabled' : 'not enabled'}
        </title>
        <style>
          ${trusted(REPORT_CSS)}
        </style>
      </head>
      <body>
        <a class="skip" href="#cells-heading">Skip to the cells</a>
        <main>
          ${renderIntegrity(integrity)} ${renderHeader(evidence, gate, anchors)}
          <h2>Protocol: where the faults were injected</h2>
          <section id="diagram">${renderDiagram(routeCells(evidence))}</section>
          <h2>Matrix: fault points × scenarios</h2>
          <p class="legend">
            Each chip is one cell, coloured by verdict: ✓ PASS (green), ✗ FAIL (red), ? UNKNOWN (amber: ran,
            but a checker could not decide), – UNVERIFIED (grey: could not run; never counts as PASS). The
            chip names the cell kind: d1 = SIGKILL in the first attempt; the small squares after it are its d2
            cells (SIGKILL again inside the recovery run, one per recovery point: hover for the point); random
            = SIGKILL at a seeded time, Nw = N racing workers. Click a chip to open its cell.
          </p>
          <section id="matrix">${renderMatrix(routeCells(evidence), anchors)}</section>
          <h2>Sensitivity: unsafe variants must be caught</h2>
          <section id="sensitivity">
            ${renderSensitivity(evidence, anchors)}
            ${
              variantCells(evidence).length > 0
                ? html`<p class="legend">
                      Cells run against unsafe variants (✗ FAIL is the wanted outcome: the checks caught the
                      bug):
                    </p>
                    ${renderMatrix(variantCells(evidence), anchors, (cell) => cell.variant ?? '', 'fault point × unsafe variant')}`
                : null
            }
          </section>
          <h2 id="cells-heading">Cells, failures first</h2>
          <p class="legend">
            The route's cells, worst first, then the cells run against unsafe variants. Each cell shows one
            lane per worker attempt (bar length = duration; ✕ marks the SIGKILL at the planned fault point, ⏸
            a SIGSTOP), the journal's transitions with their versions, lease epochs and fence answers, the
            target's mutation count from the harness's own audit, every check, and the command that replays
            it.
          </p>
          <div class="filters" role="group" aria-label="filter by verdict">
            <button type="button" data-verdict="ALL" aria-pressed="true">all ${evidence.cells.length}</button>
            ${(['FAIL', 'UNKNOWN', 'UNVERIFIED', 'PASS'] as const).map(
              (verdict) =>
                html`<button type="button" data-verdict="${verdict}" aria-pressed="false">
                  ${verdict} ${counts[verdict]}
                </button>`,
            )}
            ${
              variants > 0
                ? html`<button type="button" data-verdict="VARIANT" aria-pressed="false">
                    unsafe variants ${variants}
                  </button>`
                : null
            }
          </div>
          <section id="cells">
            ${ordered.map((cell) => renderCell(cell, anchors.get(cell.id) ?? '', lazy))}
          </section>
        </main>
        ${lazy ? packLazyBodies(lazy) : null}
        <script>
          ${trusted(REPORT_JS)};
        </script>
      </body>
    </html> `;
  return page.markup;
}

/** A banner above everything else when the evidence is not what the run wrote. */
function renderIntegrity(integrity: Integrity | undefined): SafeHtml | null {
  if (!integrity?.headline) return null;
  return html`<div class="tampered" role="alert" id="integrity">
    <strong>${integrity.headline}</strong>
    <ul>
      ${integrity.differences.map((line) => html`<li><code>${line}</code></li>`)}
    </ul>
    <p>Do not use this report to enable a route: run <code>dpone certify verify</code> on the evidence.</p>
  </div>`;
}

function renderHeader(
  evidence: Evidence,
  gate: ReportGate | null,
  anchors: ReadonlyMap<string, string>,
): SafeHtml {
  const env = evidence.environment;
  const counts = verdictCounts(routeCells(evidence));
  const databases = Object.entries(env.databases ?? {}).map(([name, version]) => `${name} ${version}`);
  const facts: [string, unknown][] = [
    ['route', evidence.route],
    ['seed', evidence.seed],
    ['provider', evidence.provider],
    ['run id', evidence.run_id],
    ['started', evidence.started_at],
    ['duration', formatDuration(evidence.duration_ms)],
    ['runtime', env.runtime_version],
    ['connector', env.connector_version],
    ['node', env.node],
    ['platform', env.platform],
    ['databases', databases.length ? databases.join(', ') : 'none'],
    ['toxiproxy', env.toxiproxy ?? 'not used'],
    ['shard', evidence.shard ? `${evidence.shard.index}/${evidence.shard.count}` : 'whole run'],
  ];
  const missed = variantViews(evidence).some((view) => view.state === 'survived');
  // The header's colour is the gate's answer, never the cells' verdict alone: green only when the
  // route may be enabled, red when a gating run failed, grey when the run cannot gate.
  const look = gate?.enabled ? 'PASS' : gate?.gating ? 'FAIL' : 'UNVERIFIED';
  return html`<header class="run ${verdictClass(look)}">
    <h1>dpone certification <code>${evidence.route}</code></h1>
    ${renderGateBox(gate)} ${renderNotVerified(evidence, anchors)}
    <p>
      Cells: <span class="badge ${verdictClass(evidence.verdict)}">${evidence.verdict}</span>
      <span class="muted"
        >(the run's verdict over its cells; the gate above decides whether the route may be enabled)</span
      >
    </p>
    <p>
      Sensitivity: <span class="${missed ? 'sensitivity-missed' : ''}">${sensitivityLine(evidence)}</span>
    </p>
    ${killLandingLines(evidence).map((line) => html`<p class="kill-landings">Kills inside the mutation: ${line}</p>`)}
    <dl class="facts">
      ${facts.map(
        ([name, value]) =>
          html`<div>
            <dt>${name}</dt>
            <dd>${value}</dd>
          </div>`,
      )}
    </dl>
    <p class="digest">evidence digest <code>${evidence.digest ?? 'none'}</code></p>
    <div class="counts">
      ${(['FAIL', 'UNKNOWN', 'UNVERIFIED', 'PASS'] as const).map(
        (verdict) => html`<span class="badge ${verdictClass(verdict)}">${counts[verdict]} ${verdict}</span>`,
      )}
      <span class="muted"
        >of ${routeCells(evidence).length} route cells; ${variantCellsRan(evidence)} more ran against unsafe
        variants${unrunVariantCells(evidence)}</span
      >
    </div>
  </header>`;
}

function unrunVariantCells(evidence: Evidence): string {
  const unrun = variantCells(evidence).length - variantCellsRan(evidence);
  return unrun > 0 ? ` (${unrun} planned against unsafe variants could not run)` : '';
}
