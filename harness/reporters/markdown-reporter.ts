import type { Evidence } from '../evidence/evidence-types.ts';
import type { Integrity } from './integrity.ts';
import type { Reporter } from './reporter.ts';
import { fileReporter, reportFileWriter } from './file-reporter.ts';
import { cellReason, failuresFirst, formatDuration, routeCells, verdictCounts } from './cell-summary.ts';
import { describeDifference } from '../checkers/first-difference.ts';
import { killLandingLines } from './kill-landings.ts';
import type { ReportGate } from './report-gate.ts';
import { sensitivityLine, variantViews } from './variant-states.ts';
import { notVerifiedGroups } from './not-verified.ts';
import { GATE_QUESTION } from './report-gate.ts';

export const MARKDOWN_REPORT_FILE = 'summary.md';

/** At most this many non-PASS cells are listed, so the summary fits a pull-request comment. */
const LISTED = 15;

/** Markdown-safe inline text: evidence may carry anything, a PR comment must not render it as markup. */
function inline(value: string): string {
  return value.replace(/[\r\n]+/g, ' ').replace(/[\\`*_[\]<>|#~!]/g, (char) => `\\${char}`);
}

function code(value: string): string {
  const clean = value.replace(/[\r\n]+/g, ' ');
  const fence = clean.includes('`') ? '`` ' : '`';
  return `${fence}${clean}${fence.split('').reverse().join('')}`;
}

/** A short summary for a pull-request comment or a CI step summary: verdict, counts, failures. */
export function renderMarkdownSummary(
  evidence: Evidence,
  integrity?: Integrity,
  gate: ReportGate | null = null,
): string {
  const cells = routeCells(evidence);
  const counts = verdictCounts(cells);
  const env = evidence.environment;
  const banner = integrity?.headline
    ? [`> **${inline(integrity.headline)}**`, ...integrity.differences.map((line) => `> - ${code(line)}`), '']
    : [];
  const lines = [
    ...banner,
    `## dpone certify: route ${code(evidence.route)}, cells **${inline(evidence.verdict)}**`,
    '',
    ...gateLines(gate),
    `seed ${evidence.seed} · provider ${inline(evidence.provider)} · runtime ${inline(env.runtime_version)} · ` +
      `connector ${inline(env.connector_version)} · ${formatDuration(evidence.duration_ms)}` +
      (evidence.shard ? ` · shard ${evidence.shard.index}/${evidence.shard.count}` : ''),
    '',
    '| PASS | FAIL | UNKNOWN | UNVERIFIED | cells |',
    '|---:|---:|---:|---:|---:|',
    `| ${counts.PASS} | ${counts.FAIL} | ${counts.UNKNOWN} | ${counts.UNVERIFIED} | ${cells.length} |`,
    '',
    `Sensitivity: ${inline(sensitivityLine(evidence))}.`,
    ...variantTable(evidence),
    ...killLandingLines(evidence).map((line) => `\nKills inside the mutation: ${inline(line)}.`),
  ];
  lines.push(...whyNotVerified(evidence));
  // UNVERIFIED cells are said once per reason above; the cells listed are those that ran and did not pass.
  const problems = failuresFirst(cells).filter(
    (cell) => cell.verdict === 'FAIL' || cell.verdict === 'UNKNOWN',
  );
  if (problems.length > 0) {
    lines.push('', `### Failed or undecided (${problems.length}, failures first)`, '');
    for (const cell of problems.slice(0, LISTED)) {
      const reason = cellReason(cell);
      lines.push(`- **${cell.verdict}** ${code(cell.id)}: ${inline(reason)}`);
      const difference = cell.target?.first_difference;
      if (difference && !reason.includes('first difference at'))
        lines.push(`  first difference at ${inline(describeDifference(difference))}`);
      lines.push(`  reproduce: ${code(cell.reproduce)}`);
    }
    if (problems.length > LISTED) lines.push(`- … and ${problems.length - LISTED} more: see index.html`);
  }
  lines.push(
    '',
    `Digest ${code(evidence.digest ?? 'none')}. Full report: \`index.html\`; CI: \`junit.xml\`.`,
    '',
  );
  return lines.join('\n');
}

/** One line per reason route cells were not verified, with the command that fixes it. */
function whyNotVerified(evidence: Evidence): string[] {
  const groups = notVerifiedGroups(evidence);
  if (groups.length === 0) return [];
  return [
    '',
    '### Why not verified',
    '',
    ...groups.map(
      (group) =>
        `- **${group.cells} ${group.verdict}** (${inline(group.kinds.join(', '))}): ${inline(group.reason)}; fix: ${code(group.fix)}`,
    ),
  ];
}

/** One row per unsafe variant: its state, what it breaks, what killed it or why it did not run. */
function variantTable(evidence: Evidence): string[] {
  const views = variantViews(evidence);
  if (views.length === 0) return [];
  const rows = views.map((view) => {
    // The reason a variant did not run is said once, grouped, in the sensitivity line above.
    const how =
      view.state === 'killed'
        ? `killed by ${view.killedBy.map(code).join(', ') || 'a catching check'}; ${inline(view.counts)}`
        : view.state === 'survived'
          ? `**SURVIVED**: ${inline(view.counts)}`
          : inline(view.counts);
    return `| ${code(view.variant)} | ${view.state} | ${inline(view.breaks ?? '')} | ${how} |`;
  });
  return ['', '| unsafe variant | state | what it breaks | how |', '|---|---|---|---|', ...rows];
}

/** The gate first: the question, its answer, one table row per gate line with the cells behind it. */
function gateLines(gate: ReportGate | null): string[] {
  if (gate === null)
    return [
      `**${GATE_QUESTION} Not evaluated**: run ${code('dpone certify gate --route ROUTE --evidence FILE')}.`,
      '',
    ];
  const lines = [`**${GATE_QUESTION} ${inline(gate.answer)}**`, ''];
  if (!gate.gating)
    lines.push(
      `Suite ${inline(gate.suite ?? '(--scenario files)')} is not the gating suite: the lines below show what its cells say; they do not certify.`,
      '',
    );
  if (gate.lines.length === 0) return lines;
  lines.push('| status | gate line | cells | why |', '|---|---|---:|---|');
  for (const line of gate.lines)
    lines.push(`| ${line.status} | ${code(line.id)} | ${line.cells} | ${inline(line.detail)} |`);
  lines.push('');
  return lines;
}

export const writeMarkdownSummary = reportFileWriter(MARKDOWN_REPORT_FILE, renderMarkdownSummary);

export function markdownReporter(): Reporter {
  return fileReporter('markdown', writeMarkdownSummary);
}
