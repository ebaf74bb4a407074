import type { ReporterFactory } from './reporter.ts';

/**
 * The reporter registry, keyed by name, apart from the Reporter interface (reporter.ts) so that the
 * interface never imports its implementations; each entry loads its module only when asked. To add
 * a reporter: export a factory from harness/reporters/<name>-reporter.ts and add one line here.
 * evidence.json itself is written by the evidence writer before any `onRunEnd`.
 */
export const REPORTERS: Readonly<Record<string, () => Promise<ReporterFactory>>> = {
  progress: async () => (await import('./progress-reporter.ts')).progressReporter,
  html: async () => (await import('./html-reporter.ts')).htmlReporter,
  markdown: async () => (await import('./markdown-reporter.ts')).markdownReporter,
  junit: async () => (await import('./junit-reporter.ts')).junitReporter,
};

/** What `certify run` uses when --reporter is not given. */
export const DEFAULT_REPORTERS: readonly string[] = ['progress', 'html', 'markdown', 'junit'];

export function reporterNames(): readonly string[] {
  return Object.keys(REPORTERS).sort();
}
