import type { Evidence } from '../evidence/evidence-types.ts';
import type { SafeHtml } from './html-escape.ts';
import { html, verdictClass } from './html-escape.ts';
import { notVerifiedGroups } from './not-verified.ts';

/**
 * "Why not verified", below the gate box: the route's UNVERIFIED and UNKNOWN cells grouped by
 * reason, each group with its cell count, fault kinds, one cell to open and the command that fixes it.
 */
export function renderNotVerified(evidence: Evidence, anchors: ReadonlyMap<string, string>): SafeHtml | null {
  const groups = notVerifiedGroups(evidence);
  if (groups.length === 0) return null;
  return html`<section class="not-verified" id="not-verified" aria-labelledby="not-verified-heading">
    <h2 id="not-verified-heading">Why not verified</h2>
    <ul>
      ${groups.map(
        (group) =>
          html`<li>
            <span class="badge ${verdictClass(group.verdict)}">${group.cells} ${group.verdict}</span>
            <span class="muted">${group.kinds.join(', ')}</span>: ${group.reason} (e.g.
            <a href="#${anchors.get(group.example.id) ?? ''}"><code>${group.example.id}</code></a
            >) <br />fix: <code>${group.fix}</code>
          </li>`,
      )}
    </ul>
  </section>`;
}
