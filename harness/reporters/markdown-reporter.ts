import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Evidence } from '../evidence/evidence-types.ts';
import type { Integrity } from './integrity.ts';
import type { Reporter } from './reporter.ts';
import {
  cellReason,
  failuresFirst,
  formatDuration,
  routeCells,
  sensitivitySummary,
  verdictCounts,
} from './cell-summary.ts';
import { describeDifference } from '../checkers/first-difference.ts';
import { killLandingLines } from './kill-landings.ts';

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
export function renderMarkdownSummary(evidence: Evidence, integrity?: Integrity): string {
  const cells = routeCells(evidence);
  const counts = verdictCounts(cells);
  const env = evidence.environment;
  const banner = integrity?.headline
    ? [`> **${inline(integrity.headline)}**`, ...integrity.differences.map((line) => `> - ${code(line)}`), '']
    : [];
  const lines = [
    ...banner,
    `## dpone certify: **${inline(evidence.verdict)}** for route ${code(evidence.route)}`,
    '',
    `seed ${evidence.seed} · provider ${inline(evidence.provider)} · runtime ${inline(env.runtime_version)} · ` +
      `connector ${inline(env.connector_version)} · ${formatDuration(evidence.duration_ms)}` +
      (evidence.shard ? ` · shard ${evidence.shard.index}/${evidence.shard.count}` : ''),
    '',
    '| PASS | FAIL | UNKNOWN | UNVERIFIED | cells |',
    '|---:|---:|---:|---:|---:|',
    `| ${counts.PASS} | ${counts.FAIL} | ${counts.UNKNOWN} | ${counts.UNVERIFIED} | ${cells.length} |`,
    '',
    `Sensitivity: ${inline(sensitivitySummary(evidence))}.`,
    ...killLandingLines(evidence).map((line) => `\nKills inside the mutation: ${inline(line)}.`),
  ];
  const problems = failuresFirst(cells).filter((cell) => cell.verdict !== 'PASS');
  if (problems.length > 0) {
    lines.push('', `### Not passing (${problems.length}, failures first)`, '');
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

export async function writeMarkdownSummary(
  evidence: Evidence,
  dir: string,
  integrity?: Integrity,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, MARKDOWN_REPORT_FILE);
  await writeFile(file, renderMarkdownSummary(evidence, integrity));
  return file;
}

export function markdownReporter(): Reporter {
  return {
    name: 'markdown',
    onRunEnd: async (evidence, dir) => void (await writeMarkdownSummary(evidence, dir)),
  };
}
