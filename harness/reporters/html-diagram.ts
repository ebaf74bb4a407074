import type { CellEvidence } from '../evidence/evidence-types.ts';
import type { SafeHtml } from './html-escape.ts';
import { html, verdictClass } from './html-escape.ts';
import { COMMIT_STATES, OPERATOR_ONLY_TRANSITIONS, TRANSITIONS } from '../../src/contracts/states.ts';
import type { CommitState } from '../../src/contracts/states.ts';
import type { PlaceTally } from './protocol-places.ts';
import { placeKey, tallyPlaces } from './protocol-places.ts';

/** Layout only (row, column) of each state; the states and edges themselves come from TRANSITIONS. */
const GRID: Readonly<Record<CommitState, readonly [number, number]>> = {
  PREPARING: [0, 0],
  PREPARED: [0, 1],
  COMMITTING: [0, 2],
  TARGET_COMMITTED: [0, 3],
  COMMITTED_INCOMPLETE: [0, 4],
  COMPLETE: [0, 5],
  FAILED_PRE_COMMIT: [1, 0.5],
  COMMIT_UNKNOWN: [1, 2.5],
};
const W = 150;
const H = 34;
const node = (state: CommitState) => {
  const [row, column] = GRID[state];
  return { x: 20 + column * 210 + W / 2, y: 40 + row * 120 + H / 2 };
};
const inside = (p: { x: number; y: number }, c: { x: number; y: number }) =>
  Math.abs(p.x - c.x) <= W / 2 + 3 && Math.abs(p.y - c.y) <= H / 2 + 3;

/** An edge as a sampled quadratic curve from border to border (bent so A→B and B→A stay apart). */
function curve(from: CommitState, to: CommitState) {
  const a = node(from);
  const b = node(to);
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length = Math.hypot(dx, dy);
  let nx = -dy / length;
  let ny = dx / length;
  // Edges between rows bend downwards; a long one far enough to pass under the lower row.
  if (dy !== 0 && ny < 0) [nx, ny] = [-nx, -ny];
  // A same-row edge that skips a state bends far enough to pass beside it.
  const bend = Math.abs(dx) > 400 ? (dy !== 0 ? 190 : 60) : 24;
  const c = { x: (a.x + b.x) / 2 + nx * bend, y: (a.y + b.y) / 2 + ny * bend };
  const at = (t: number) => ({
    x: (1 - t) ** 2 * a.x + 2 * t * (1 - t) * c.x + t ** 2 * b.x,
    y: (1 - t) ** 2 * a.y + 2 * t * (1 - t) * c.y + t ** 2 * b.y,
  });
  const points = Array.from({ length: 41 }, (_, i) => at(i / 40)).filter(
    (p) => !inside(p, a) && !inside(p, b),
  );
  return { points, middle: at(0.5) };
}

const fmt = (n: number) => String(Math.round(n));

/** An arrowhead at a curve's last point, along its last segment (inline: no url() references). */
function arrowhead(points: readonly { x: number; y: number }[]): SafeHtml | null {
  const tip = points.at(-1);
  const back = points.at(-3) ?? points.at(0);
  if (!tip || !back) return null;
  const length = Math.hypot(tip.x - back.x, tip.y - back.y) || 1;
  const [ux, uy] = [(tip.x - back.x) / length, (tip.y - back.y) / length];
  const corner = (side: number) =>
    `${fmt(tip.x - ux * 9 - uy * 4 * side)},${fmt(tip.y - uy * 9 + ux * 4 * side)}`;
  return html`<polygon
    class="arrowhead"
    points="${fmt(tip.x)},${fmt(tip.y)} ${corner(1)} ${corner(-1)}"
  ></polygon>`;
}

function badge(tally: PlaceTally | undefined, x: number, y: number): SafeHtml | null {
  if (!tally) return null;
  const counts = Object.entries(tally.counts)
    .filter(([, count]) => count > 0)
    .map(([verdict, count]) => `${count} ${verdict}`)
    .join(', ');
  const label = `${tally.cells} cells faulted at ${tally.points.join(', ')}: ${counts}`;
  return html`<a
    class="place ${verdictClass(tally.worst)}"
    href="#cells"
    data-place="${tally.key}"
    data-worst="${tally.worst}"
    aria-label="${label}"
    ><title>${label}</title><circle cx="${fmt(x)}" cy="${fmt(y)}" r="13"></circle
    ><text x="${fmt(x)}" y="${fmt(y + 4)}">${tally.cells}</text></a
  >`;
}

/**
 * The protocol's state diagram as inline SVG: every state and every transition of the spec's
 * table, and on each a badge counting the cells whose fault sits there, coloured by the worst
 * verdict they reached. A badge is a link: clicking it shows only those cells.
 */
export function renderDiagram(cells: readonly CellEvidence[]): SafeHtml {
  const { places, unplaced } = tallyPlaces(cells);
  const byKey = new Map(places.map((tally) => [tally.key, tally]));
  const edges = COMMIT_STATES.flatMap((from) => TRANSITIONS[from].map((to) => [from, to] as const));
  const operator = (from: CommitState, to: CommitState) =>
    OPERATOR_ONLY_TRANSITIONS.some(([f, t]) => f === from && t === to);
  const drawn = edges.map(([from, to]) => {
    const { points, middle } = curve(from, to);
    return {
      line: html`<polyline
          class="edge${operator(from, to) ? ' operator' : ''}"
          data-edge="${from}->${to}"
          points="${points.map((p) => `${fmt(p.x)},${fmt(p.y)}`).join(' ')}"
        ></polyline
        >${arrowhead(points)}`,
      badge: badge(byKey.get(placeKey({ kind: 'edge', from, to })), middle.x, middle.y),
    };
  });
  const states = COMMIT_STATES.map((state) => {
    const { x, y } = node(state);
    return html`<g class="state" data-state="${state}">
      <rect x="${fmt(x - W / 2)}" y="${fmt(y - H / 2)}" width="${W}" height="${H}" rx="6"></rect>
      <text x="${fmt(x)}" y="${fmt(y + 4)}">${state}</text>
      ${badge(byKey.get(placeKey({ kind: 'state', state })), x + W / 2 - 4, y - H / 2 - 4)}
    </g>`;
  });
  return html`<figure class="diagram">
    <div class="diagram-wrap">
      <svg viewBox="0 0 1240 250" role="group" aria-label="protocol state diagram with fault points">
        ${drawn.map((edge) => edge.line)} ${states} ${drawn.map((edge) => edge.badge)}
      </svg>
    </div>
    <figcaption class="legend">
      States and transitions of the journal (dashed: operator-only). A numbered circle counts the cells whose
      fault sits there: on an edge for a kill at that compare-and-set, on a state for a fault while the
      journal held it; its colour is the worst verdict of those cells. Click it to show only
      them.${unplaced > 0 ? ` ${unplaced} cells have no fault point on the diagram (races, random kills, …).` : ''}
      <button type="button" class="show-all-places" hidden>show every cell</button>
    </figcaption>
  </figure>`;
}
