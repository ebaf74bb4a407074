/** The report's stylesheet, inlined so index.html opens from disk with no network. */
export const REPORT_CSS = `
:root { --pass:#1a7f37; --fail:#cf222e; --unknown:#9a6700; --unverified:#57606a; --ink:#1f2328;
  --muted:#59636e; --line:#d1d9e0; --bg:#ffffff; --soft:#f6f8fa; font-family: system-ui, -apple-system,
  "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
body { margin: 0 auto; max-width: 1200px; padding: 16px 24px 48px; line-height: 1.4; }
h1 { font-size: 22px; margin: 0 0 8px; display: flex; gap: 12px; align-items: center; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.badge { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; font-weight: 600;
  font-size: 13px; letter-spacing: .3px; }
.badge.v-PASS, .chip.v-PASS { background: var(--pass); }
.badge.v-FAIL, .chip.v-FAIL { background: var(--fail); }
.badge.v-UNKNOWN, .chip.v-UNKNOWN { background: var(--unknown); }
.badge.v-UNVERIFIED, .chip.v-UNVERIFIED { background: var(--unverified); }
header.run { border: 1px solid var(--line); border-left: 8px solid var(--unverified); border-radius: 6px;
  padding: 12px 16px; background: var(--soft); }
header.run.v-PASS { border-left-color: var(--pass); } header.run.v-FAIL { border-left-color: var(--fail); }
header.run.v-UNKNOWN { border-left-color: var(--unknown); }
.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 4px 20px; margin: 0; }
.facts div { display: flex; gap: 6px; min-width: 0; } .facts dt { color: var(--muted); white-space: nowrap; }
.facts dd { margin: 0; overflow-wrap: anywhere; font-weight: 500; }
.tampered { border: 3px solid var(--fail); background: #fde8e8; color: #5c0a0a; border-radius: 6px;
  padding: 10px 14px; margin: 0 0 14px; font-size: 15px; }
.tampered ul { margin: 6px 0; font-size: 12px; }
.digest { font-size: 12px; color: var(--muted); overflow-wrap: anywhere; margin: 6px 0 0; }
.counts { margin-top: 8px; display: flex; gap: 8px; flex-wrap: wrap; }
.sensitivity-missed { color: var(--fail); font-weight: 700; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
.matrix-wrap { overflow-x: auto; max-width: 100%; }
table.matrix th:first-child, table.matrix td.point { position: sticky; left: 0; z-index: 1; background: var(--soft); }
.skip { position: absolute; left: -9999px; } .skip:focus { position: static; display: inline-block; margin: 4px 0; }
h3.cell-title { display: inline; font-size: inherit; margin: 0; font-weight: inherit; min-width: 0; overflow-wrap: anywhere; }
.diagram, .swimlane { margin: 6px 0; } .diagram-wrap { overflow-x: auto; max-width: 100%; }
.diagram svg { width: 100%; min-width: 560px; height: auto; font-size: 12px; }
.diagram .state rect { fill: #fff; stroke: var(--ink); } .diagram .state text { text-anchor: middle; font-weight: 600; fill: var(--ink); font-size: 11px; }
.diagram .edge { fill: none; stroke: var(--muted); stroke-width: 1.5; } .diagram .edge.operator { stroke-dasharray: 5 4; }
.diagram .arrowhead { fill: var(--muted); }
.diagram a.place circle { stroke: #fff; stroke-width: 2; } .diagram a.place text { fill: #fff; text-anchor: middle; font-weight: 700; }
.diagram a.place.v-PASS circle { fill: var(--pass); } .diagram a.place.v-FAIL circle { fill: var(--fail); }
.diagram a.place.v-UNKNOWN circle { fill: var(--unknown); } .diagram a.place.v-UNVERIFIED circle { fill: var(--unverified); }
.diagram a.place:focus circle { stroke: var(--ink); stroke-width: 3; }
.swimlane svg { width: 100%; height: auto; font-size: 12px; fill: var(--ink); }
.sw-attempt rect { fill: #8c959f; } .sw-attempt.exit-ok rect { fill: var(--pass); } .sw-attempt.killed rect { fill: var(--fail); }
.sw-attempt.failed rect { fill: var(--unknown); } .sw-attempt .kill { fill: var(--fail); font-weight: 700; }
.sw-axis { stroke: var(--line); } .sw-write line { stroke: #0969da; stroke-width: 2; } .sw-write.staged line { stroke: var(--muted); }
.sw-fence { fill: #8250df; } .sw-final.bad { fill: var(--fail); font-weight: 700; } .sw-scale { fill: var(--muted); font-size: 11px; }
.narrative { border-left: 4px solid var(--fail); background: #fff8f8; padding: 4px 12px; margin: 6px 0; font-size: 13px; }
.narrative ol { margin: 4px 0; padding-left: 20px; } .narrative li { overflow-wrap: anywhere; }
table.matrix td.point { font-family: ui-monospace, monospace; font-size: 12px; white-space: nowrap; }
.chip { white-space: nowrap; display: inline-block; min-width: 44px; text-align: center; color: #fff; border-radius: 4px;
  padding: 1px 6px; margin: 1px; font-size: 11.5px; font-weight: 600; text-decoration: none; }
.chip.mini { min-width: 0; width: 15px; padding: 1px 0; margin: 1px 0; font-size: 10px; }
.legend { color: var(--muted); font-size: 12.5px; margin: 6px 0; }
.filters { display: flex; gap: 6px; margin: 6px 0 10px; }
.filters button { border: 1px solid var(--line); background: #fff; border-radius: 14px; padding: 2px 12px;
  cursor: pointer; font-size: 12.5px; } .filters button[aria-pressed="true"] { background: var(--ink); color: #fff; }
details.cell { border: 1px solid var(--line); border-left: 6px solid var(--unverified); border-radius: 6px;
  margin: 8px 0; background: #fff; }
details.cell.v-PASS { border-left-color: var(--pass); } details.cell.v-FAIL { border-left-color: var(--fail); }
details.cell.v-UNKNOWN { border-left-color: var(--unknown); }
details.cell > summary { cursor: pointer; padding: 6px 10px; display: flex; gap: 10px; align-items: baseline;
  flex-wrap: wrap; } details.cell > summary code { font-weight: 600; }
details.cell > summary > * { min-width: 0; max-width: 100%; overflow-wrap: anywhere; }
.reason { color: var(--muted); font-size: 13px; }
.cell-body { padding: 4px 12px 12px; }
.stat { display: inline-block; border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px;
  margin: 0 8px 8px 0; text-align: center; } .stat b { display: block; font-size: 20px; }
.stat.bad { border-color: var(--fail); color: var(--fail); }
.timeline { margin: 6px 0 10px; }
.lane { display: grid; grid-template-columns: 190px 1fr; gap: 8px; align-items: center; padding: 4px 0;
  border-top: 1px dashed var(--line); }
.lane-label { font-size: 12.5px; } .lane-label small { color: var(--muted); display: block; }
.track { position: relative; min-height: 26px; }
.bar { height: 12px; border-radius: 3px; background: #8c959f; margin-top: 3px; min-width: 4px; }
.bar.exit-ok { background: var(--pass); } .bar.killed { background: var(--fail); }
.bar.failed { background: var(--unknown); }
.markers { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 3px; font-size: 12px; }
.marker { border-radius: 4px; padding: 0 6px; border: 1px solid var(--line); background: var(--soft);
  white-space: nowrap; } .marker.kill { border-color: var(--fail); color: var(--fail); font-weight: 600; }
.marker.pause { border-color: #0969da; color: #0969da; font-weight: 600; }
.marker.network { border-color: #8250df; color: #8250df; font-weight: 600; }
.steps { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; }
.step { font-size: 12px; border: 1px solid var(--line); border-radius: 4px; padding: 1px 6px; background: var(--soft); }
.step.fence { border-color: #0969da; } .step.to-COMPLETE { border-color: var(--pass); }
.step.to-COMMIT_UNKNOWN { border-color: var(--unknown); } .step small { color: var(--muted); }
.arrow { color: var(--muted); font-size: 11px; }
pre.repro { background: #0d1117; color: #e6edf3; padding: 8px 10px; border-radius: 6px; overflow-x: auto;
  margin: 4px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.gate { border: 2px solid var(--fail); border-radius: 6px; padding: 8px 14px; margin: 8px 0 12px; background: #fff; }
.gate.gate-yes { border-color: var(--pass); }
.gate h2 { margin: 0 0 4px; border: 0; font-size: 18px; } .gate .answer { font-weight: 700; }
.table-wrap { overflow-x: auto; max-width: 100%; }
table.gate-lines td.num { text-align: right; } table.gate-lines th[scope="row"] { background: none; font-weight: 500; white-space: nowrap; }
.not-verified ul { margin: 4px 0; padding-left: 18px; } .not-verified li { margin: 4px 0; overflow-wrap: anywhere; }
@media (max-width: 600px) {
  body { padding: 8px 10px 32px; }
  .lane { grid-template-columns: 1fr; } .filters { flex-wrap: wrap; }
  table.checks, table.checks tbody, table.checks tr, table.checks td { display: block; }
  table.checks thead { display: none; } table.checks td { border: 0; overflow-wrap: anywhere; }
  table.checks tr { border-top: 1px solid var(--line); }
  .marker { white-space: normal; }
  table.gate-lines thead { display: none; }
  table.gate-lines tr { display: block; border-top: 1px solid var(--line); padding: 4px 0; }
  table.gate-lines td, table.gate-lines th[scope="row"] { display: inline; border: 0; padding: 2px 4px; }
  table.gate-lines td:last-child { display: block; }
}
[hidden] { display: none !important; }
`;
