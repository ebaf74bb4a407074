import { invalidInput } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import { urlEngine } from './route-names.ts';
import { builtInConnector } from './engine-table.ts';
import { JOURNAL_PASSWORD_ENV } from './journal-url.ts';

/** Whether a journal URL names a journal kept on a server (ConnectorPlugin.journal kind `server`), which takes a password. */
function serverJournal(url: string): boolean {
  const engine = urlEngine(url);
  return engine !== null && builtInConnector(engine)?.journal?.kind === 'server';
}

function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    return false; // the journal opener reports a malformed URL
  }
}

/**
 * Checks, before any journal or server I/O, that every password variable the command needs is
 * set: the ones the workload's endpoints name (`password_env`) and, for a server journal URL
 * without a password in it, DPONE_JOURNAL_PASSWORD (set it empty for trust or peer
 * authentication). A missing one is bad input (exit 2) naming the variable, never the cause of a
 * journal that "could not be reached" and a retry.
 */
export function checkRequiredSecrets(
  workload: Workload | null,
  journalUrl: string,
  env: NodeJS.ProcessEnv,
  ends: readonly ('source' | 'target')[] = ['source', 'target'],
): void {
  for (const end of workload ? ends : []) {
    const name = workload![end].password_env;
    if (name !== undefined && env[name] === undefined)
      throw invalidInput(`${end}.password_env names ${name}, which is not set`, {
        field: `${end}.password_env`,
      });
  }
  if (serverJournal(journalUrl) && !urlHasPassword(journalUrl) && env[JOURNAL_PASSWORD_ENV] === undefined)
    throw invalidInput(
      `the journal is a server and ${JOURNAL_PASSWORD_ENV} is not set (set it empty for trust or peer authentication)`,
      { field: JOURNAL_PASSWORD_ENV },
    );
}
