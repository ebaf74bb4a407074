import type { SafeHtml } from './html-escape.ts';
import { html, verdictClass } from './html-escape.ts';
import type { ReportGate } from './report-gate.ts';
import { GATE_QUESTION } from './report-gate.ts';

/** How many deciding cell ids a gate row names before "(+N more)". */
const DECIDING_SHOWN = 3;

/**
 * The gate box at the top of the report: the question a reviewer asks, its answer, and one row per
 * gate line (status, line, cells behind it, why). On a run that is not gating, the lines say what
 * its cells show; the answer says why they cannot enable the route.
 */
export function renderGateBox(gate: ReportGate | null): SafeHtml {
  if (gate === null)
    return html`<section class="gate gate-no" id="gate" aria-labelledby="gate-heading">
      <h2 id="gate-heading">${GATE_QUESTION} Not evaluated</h2>
      <p>
        This report was rendered without the gate. Run
        <code>dpone certify gate --route ROUTE --evidence FILE</code>
        for its answer.
      </p>
    </section>`;
  return html`<section
    class="gate ${gate.enabled ? 'gate-yes' : 'gate-no'}"
    id="gate"
    aria-labelledby="gate-heading"
  >
    <h2 id="gate-heading">${GATE_QUESTION} <span class="answer">${gate.answer}</span></h2>
    <p class="legend">
      ${
        gate.gating
          ? 'The gate decides from these lines: every one must be PASS, each decided by cells that reached its situation.'
          : `Suite ${gate.suite ?? '(--scenario files)'} is not the gating suite: these lines show what its cells say, they do not certify.`
      }
    </p>
    ${gate.lines.length === 0 ? null : renderLines(gate)}
  </section>`;
}

function renderLines(gate: ReportGate): SafeHtml {
  return html`<div class="table-wrap">
    <table class="gate-lines">
      <thead>
        <tr>
          <th scope="col">status</th>
          <th scope="col">gate line</th>
          <th scope="col">cells</th>
          <th scope="col">why</th>
        </tr>
      </thead>
      <tbody>
        ${gate.lines.map((line) => {
          const ids = line.decided_by ?? [];
          const more = ids.length > DECIDING_SHOWN ? ` (+${ids.length - DECIDING_SHOWN} more)` : '';
          return html`<tr data-status="${line.status}">
            <td><span class="badge ${verdictClass(line.status)}">${line.status}</span></td>
            <th scope="row"><code>${line.id}</code></th>
            <td class="num">${line.cells}</td>
            <td>
              ${line.detail}${
                ids.length > 0
                  ? html`<br /><small class="muted"
                        >decided by ${ids.slice(0, DECIDING_SHOWN).join(', ')}${more}</small
                      >`
                  : null
              }
            </td>
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}
