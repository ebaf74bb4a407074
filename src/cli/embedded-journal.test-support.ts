import { embeddedEngine } from './engine-roles.ts';

/**
 * The URL of the embedded engine's file journal at `path`, for a test's `--journal`: the scheme of
 * the URL its registration gives the default journal (JournalEngine.defaultUrl), so the test names
 * no engine.
 */
export function embeddedJournalUrl(path: string): string {
  const defaultUrl = embeddedEngine()[1].journal!.defaultUrl!('/');
  return `${new URL(defaultUrl).protocol}//${path}`;
}
