import type { Evidence } from '../evidence/evidence-types.ts';
import { writeHtmlReport } from './html-reporter.ts';
import { writeJunitReport } from './junit-reporter.ts';
import { writeMarkdownSummary } from './markdown-reporter.ts';

/** Renders the three human/CI reports of one evidence into `dir`; returns the files written. */
export async function writeReportFiles(evidence: Evidence, dir: string): Promise<string[]> {
  return Promise.all([
    writeHtmlReport(evidence, dir),
    writeMarkdownSummary(evidence, dir),
    writeJunitReport(evidence, dir),
  ]);
}
