import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Evidence } from '../evidence/evidence-types.ts';
import type { Integrity } from './integrity.ts';
import type { Reporter } from './reporter.ts';
import type { ReportGate } from './report-gate.ts';
import { renderHtmlReport } from './html-page.ts';

export const HTML_REPORT_FILE = 'index.html';

/** Writes DIR/index.html, the self-contained report a reviewer reads before a route is enabled. */
export async function writeHtmlReport(
  evidence: Evidence,
  dir: string,
  integrity?: Integrity,
  gate: ReportGate | null = null,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, HTML_REPORT_FILE);
  await writeFile(file, renderHtmlReport(evidence, integrity, gate));
  return file;
}

export function htmlReporter(): Reporter {
  return {
    name: 'html',
    onRunEnd: async (evidence, dir, gate) => void (await writeHtmlReport(evidence, dir, undefined, gate)),
  };
}
