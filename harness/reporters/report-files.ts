import type { Evidence } from '../evidence/evidence-types.ts';
import type { Integrity } from './integrity.ts';
import type { ReportGate } from './report-gate.ts';
import { writeHtmlReport } from './html-reporter.ts';
import { writeJunitReport } from './junit-reporter.ts';
import { writeMarkdownSummary } from './markdown-reporter.ts';

/**
 * Renders the three human/CI reports of one evidence into `dir`; returns the files written. With a
 * failed integrity check, each report carries it at its top.
 */
export async function writeReportFiles(
  evidence: Evidence,
  dir: string,
  integrity?: Integrity,
  gate: ReportGate | null = null,
): Promise<string[]> {
  return Promise.all([
    writeHtmlReport(evidence, dir, integrity, gate),
    writeMarkdownSummary(evidence, dir, integrity, gate),
    writeJunitReport(evidence, dir, integrity, gate),
  ]);
}
