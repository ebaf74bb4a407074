import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import type { Integrity } from './integrity.ts';
import type { Reporter } from './reporter.ts';
import { fileReporter, reportFileWriter } from './file-reporter.ts';
import { cellReason, compareIds } from './cell-summary.ts';
import type { ReportGate } from './report-gate.ts';
import { gateSentence } from './report-gate.ts';
import { variantViews } from './variant-states.ts';

export const JUNIT_REPORT_FILE = 'junit.xml';

/** Code points XML 1.0 forbids (most C0 controls, U+FFFE, U+FFFF): dropped, not escaped. */
function isXmlChar(char: string): boolean {
  const code = char.codePointAt(0)!;
  return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code !== 0xfffe && code !== 0xffff);
}

/** XML text and attribute escaping. */
export function escapeXml(value: string): string {
  return [...value]
    .filter(isXmlChar)
    .join('')
    .replace(
      /[&<>"']/g,
      (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[char]!,
    );
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

/**
 * One test case per cell, grouped in one suite per scenario. FAIL → <failure>, UNKNOWN → <error>,
 * UNVERIFIED → <skipped> (never a pass). A cell run against an unsafe variant is expected to
 * fail, so it is not a failure itself (one that could not run is <skipped>); each variant gets one
 * extra case that fails if it survived and is skipped if it did not run.
 */
export function renderJunit(
  evidence: Evidence,
  integrity?: Integrity,
  gate: ReportGate | null = null,
): string {
  const suites = new Map<string, CellEvidence[]>();
  for (const cell of [...evidence.cells].sort((a, b) => compareIds(a.id, b.id))) {
    const name = cell.variant ? `sensitivity ${cell.variant}: ${cell.scenario}` : cell.scenario;
    suites.set(name, [...(suites.get(name) ?? []), cell]);
  }
  const body = [...suites.entries()].map(([name, cells]) => renderSuite(evidence, name, cells));
  if (evidence.sensitivity.length > 0) body.push(renderSensitivitySuite(evidence));
  const gateSuite = gate ? renderGateSuite(evidence, gate) : null;
  if (gateSuite) body.unshift(gateSuite.xml);
  const tampered = integrity?.headline ? 1 : 0;
  if (integrity?.headline) body.unshift(renderIntegritySuite(integrity.headline, integrity.differences));
  const all = evidence.cells.filter((cell) => cell.variant === null);
  const views = variantViews(evidence);
  const missed = views.filter((view) => view.state === 'survived').length;
  const variantsNotRun = views.filter((view) => view.state === 'not-run').length;
  const variantCellsNotRun = evidence.cells.filter(
    (cell) => cell.variant !== null && cell.verdict === 'UNVERIFIED',
  ).length;
  const tests = evidence.cells.length + evidence.sensitivity.length + tampered + (gateSuite?.tests ?? 0);
  const failures =
    all.filter((cell) => cell.verdict === 'FAIL').length + missed + tampered + (gateSuite?.failures ?? 0);
  const errors = all.filter((cell) => cell.verdict === 'UNKNOWN').length + (gateSuite?.errors ?? 0);
  const skipped =
    all.filter((cell) => cell.verdict === 'UNVERIFIED').length +
    variantsNotRun +
    variantCellsNotRun +
    (gateSuite?.skipped ?? 0);
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="${escapeXml(`dpone certify ${evidence.route}`)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(evidence.duration_ms)}">
${body.join('\n')}
</testsuites>
`;
}

function renderSuite(evidence: Evidence, name: string, cells: readonly CellEvidence[]): string {
  const counted = cells.filter((cell) => cell.variant === null);
  const count = (verdict: string): number =>
    // A variant cell that could not run is skipped too; its FAIL is wanted, so not counted.
    (verdict === 'UNVERIFIED' ? cells : counted).filter((cell) => cell.verdict === verdict).length;
  const time = cells.reduce((sum, cell) => sum + cell.duration_ms, 0);
  const cases = cells.map((cell) => renderCase(evidence, cell));
  return `  <testsuite name="${escapeXml(name)}" tests="${cells.length}" failures="${count('FAIL')}" errors="${count('UNKNOWN')}" skipped="${count('UNVERIFIED')}" time="${seconds(time)}" timestamp="${escapeXml(evidence.started_at)}">
${cases.join('\n')}
  </testsuite>`;
}

function renderCase(evidence: Evidence, cell: CellEvidence): string {
  const classname = escapeXml(`dpone.${evidence.route}.${cell.scenario}`);
  const open = `    <testcase name="${escapeXml(cell.id)}" classname="${classname}" time="${seconds(cell.duration_ms)}"`;
  const reason = escapeXml(cellReason(cell));
  const detail = escapeXml(`${cellReason(cell)}\nreproduce: ${cell.reproduce}`);
  if (cell.variant !== null && cell.verdict === 'UNVERIFIED')
    return `${open}>\n      <skipped message="${escapeXml(`not run (unsafe variant ${cell.variant}): ${cellReason(cell)}`)}"/>\n    </testcase>`;
  if (cell.variant !== null)
    return `${open}>\n      <system-out>${escapeXml(`unsafe variant ${cell.variant}: ${cell.verdict} (FAIL is the wanted outcome)`)}</system-out>\n    </testcase>`;
  if (cell.verdict === 'FAIL')
    return `${open}>\n      <failure message="${reason}" type="FAIL">${detail}</failure>\n    </testcase>`;
  if (cell.verdict === 'UNKNOWN')
    return `${open}>\n      <error message="${reason}" type="UNKNOWN">${detail}</error>\n    </testcase>`;
  if (cell.verdict === 'UNVERIFIED')
    return `${open}>\n      <skipped message="${escapeXml(`UNVERIFIED: ${cellReason(cell)}`)}"/>\n    </testcase>`;
  return `${open}/>`;
}

/**
 * One case per unsafe variant: killed passes, SURVIVED fails, not run (none of its cells could run
 * here) is skipped with the reason: never a failure nor a pass for something that did not run.
 */
function renderSensitivitySuite(evidence: Evidence): string {
  const views = variantViews(evidence);
  const cases = views.map((view) => {
    const open = `    <testcase name="${escapeXml(`unsafe variant ${view.variant} is caught`)}" classname="dpone.${escapeXml(evidence.route)}.sensitivity" time="0.000"`;
    if (view.state === 'killed') return `${open}/>`;
    if (view.state === 'not-run')
      return `${open}>\n      <skipped message="${escapeXml(`not run: ${view.reason ?? 'no reason recorded'}`)}"/>\n    </testcase>`;
    const message = escapeXml(`variant ${view.variant} survived: ${view.counts}`);
    return `${open}>\n      <failure message="${message}" type="SURVIVED">${message}</failure>\n    </testcase>`;
  });
  const survived = views.filter((view) => view.state === 'survived').length;
  const notRun = views.filter((view) => view.state === 'not-run').length;
  return `  <testsuite name="sensitivity" tests="${cases.length}" failures="${survived}" errors="0" skipped="${notRun}" time="0.000">
${cases.join('\n')}
  </testsuite>`;
}

interface GateSuite {
  readonly xml: string;
  readonly tests: number;
  readonly failures: number;
  readonly errors: number;
  readonly skipped: number;
}

/**
 * One test case per gate line, first in the file. On a gating run (the full suite, whole) a line
 * not PASS fails (FAIL), errs (UNKNOWN) or is skipped (UNVERIFIED). A run that cannot gate (the
 * default suite, a shard) reports every line skipped with its status in the message: its lines
 * are not a certification, so neither a pass nor a failure of the route's gate.
 */
function renderGateSuite(evidence: Evidence, gate: ReportGate): GateSuite {
  const classname = escapeXml(`dpone.${evidence.route}.gate`);
  const counts = { failures: 0, errors: 0, skipped: 0 };
  const cases = gate.lines.map((line) => {
    const open = `    <testcase name="${escapeXml(line.id)}" classname="${classname}" time="0.000"`;
    const message = escapeXml(`${line.status} (${line.cells} cells): ${line.detail}`);
    if (!gate.gating) {
      counts.skipped++;
      return `${open}>
      <skipped message="${escapeXml(`not a gating run: ${gate.answer}. Line: `)}${message}"/>
    </testcase>`;
    }
    if (line.status === 'PASS') return `${open}/>`;
    if (line.status === 'FAIL') {
      counts.failures++;
      return `${open}>
      <failure message="${message}" type="GATE">${message}</failure>
    </testcase>`;
    }
    if (line.status === 'UNKNOWN') {
      counts.errors++;
      return `${open}>
      <error message="${message}" type="UNKNOWN">${message}</error>
    </testcase>`;
    }
    counts.skipped++;
    return `${open}>
      <skipped message="${message}"/>
    </testcase>`;
  });
  const xml = `  <testsuite name="${escapeXml(`gate: ${gateSentence(gate)}`)}" tests="${cases.length}" failures="${counts.failures}" errors="${counts.errors}" skipped="${counts.skipped}" time="0.000">
${cases.join('\n')}
  </testsuite>`;
  return { xml, tests: cases.length, ...counts };
}

/** One failing case at the top when the evidence is not what the run wrote. */
function renderIntegritySuite(headline: string, differences: readonly string[]): string {
  return `  <testsuite name="evidence integrity" tests="1" failures="1" errors="0" skipped="0" time="0.000">
    <testcase classname="evidence integrity" name="digest and verdicts" time="0.000">
      <failure message="${escapeXml(headline)}">${escapeXml(differences.join('\n'))}</failure>
    </testcase>
  </testsuite>`;
}

export const writeJunitReport = reportFileWriter(JUNIT_REPORT_FILE, renderJunit);

export function junitReporter(): Reporter {
  return fileReporter('junit', writeJunitReport);
}
