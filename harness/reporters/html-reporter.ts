import type { Reporter } from './reporter.ts';
import { fileReporter, reportFileWriter } from './file-reporter.ts';
import { renderHtmlReport } from './html-page.ts';

export const HTML_REPORT_FILE = 'index.html';

/** Writes DIR/index.html, the self-contained report a reviewer reads before a route is enabled. */
export const writeHtmlReport = reportFileWriter(HTML_REPORT_FILE, renderHtmlReport);

export function htmlReporter(): Reporter {
  return fileReporter('html', writeHtmlReport);
}
