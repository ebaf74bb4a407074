import { isAbsolute, resolve } from 'node:path';
import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../contracts/errors.ts';
import { redactUrl, urlPasswordProblem } from '../contracts/redact-url.ts';
import { urlEngine } from '../contracts/route-id.ts';
import type { JournalWarn, TargetCommitJournalPort } from '../ports/journal.ts';
import { checkSqliteFile } from '../../connectors/sqlite/sqlite-file.ts';

/** Where a journal URL is opened from: relative SQLite paths resolve against `cwd`. */
export interface JournalOpenContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /**
   * Recovery inspect and plan: open for reading only. Nothing is created (a missing or empty
   * journal is an error), not a byte changes, and a copy on read-only media opens too.
   */
  readonly readOnly?: boolean;
  /** Hears, in one line, a takeover of a lease whose expiry was a clock fault (which holder, which expiry). */
  readonly warn?: JournalWarn;
  /**
   * UNSAFE, the harness's `trust-holder-clock` variant only: leases by the clock that wrote them
   * (a server journal binds the caller's time; no clock-fault bound).
   */
  readonly trustHolderClock?: boolean;
  /** UNSAFE, the harness's `journal-sync-off` variant only: a SQLite journal opened with synchronous=OFF. */
  readonly journalSyncOff?: boolean;
  /**
   * Which flag, workload key or default named this journal (`--journal` when not given): a refused
   * or damaged SQLite journal file says so.
   */
  readonly chosenBy?: string;
}

const FLAG = '--journal';

/** A journal's warning (a lease read as a clock fault) as one line on stderr; never part of a result. */
export function journalWarning(io: { readonly stderr: NodeJS.WritableStream }): JournalWarn {
  return (message) => void io.stderr.write(`dpone: warning: ${message}\n`);
}

/**
 * Env var holding the journal password: the URL itself (which may be logged) never carries one.
 * A URL with a password is refused (one policy for every URL: src/contracts/redact-url.ts).
 */
export const JOURNAL_PASSWORD_ENV = 'DPONE_JOURNAL_PASSWORD';

/** Env var that lets the non-durable `memory:` journal be used outside the test runner. */
export const ALLOW_MEMORY_ENV = 'DPONE_ALLOW_MEMORY_JOURNAL';

function bad(url: string, why: string): DponeError {
  return invalidInput(`${FLAG} "${redactUrl(url)}" ${why}`, { field: FLAG });
}

/** Parses a `sqlite:` URL to a file path: `sqlite:///abs/path` or `sqlite:relative/path`. */
export function sqlitePath(url: string, cwd: string): string {
  const rest = url.slice('sqlite:'.length);
  let path: string;
  if (rest.startsWith('//')) {
    // sqlite://HOST/... names a host; only the empty host (sqlite:///abs) is a local file.
    if (!rest.startsWith('///')) throw bad(url, 'must be sqlite:///absolute/path or sqlite:relative/path');
    path = rest.slice(2);
  } else {
    path = rest;
  }
  path = path.split(/[?#]/, 1)[0] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    throw bad(url, 'has a malformed percent-escape');
  }
  if (path === '' || path.endsWith('/')) throw bad(url, 'names no journal file');
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** A server URL must at least parse and name a host; the adapter checks the rest. */
function checkServerUrl(url: string): void {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    throw bad(url, 'is not a valid URL');
  }
  if (host === '') throw bad(url, 'names no host');
}

/**
 * Opens the journal a `--journal` URL names. Supported:
 * - `sqlite:///abs/path.db`, `sqlite:relative/path.db` (relative to `context.cwd`);
 * - `postgres://…` / `postgresql://…` (PostgreSQL adapter), `mssql://…` / `sqlserver://…` (MSSQL);
 * - `memory:` — in-process and NOT durable: only inside the test runner or with
 *   DPONE_ALLOW_MEMORY_JOURNAL=1, because it would advertise protection it cannot give.
 * A bad URL is DPONE_INVALID_INPUT naming `--journal`; its text is redacted of any password.
 */
export async function openJournal(
  url: string,
  context: JournalOpenContext,
): Promise<TargetCommitJournalPort> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  const password = context.env[JOURNAL_PASSWORD_ENV] || undefined;
  const problem = urlPasswordProblem(url);
  const warn = context.warn ? { warn: context.warn } : {};
  const trust = context.trustHolderClock === true;
  if (problem) throw bad(url, `${problem}: put the password in ${JOURNAL_PASSWORD_ENV}`);
  try {
    switch (scheme) {
      case 'sqlite': {
        const path = sqlitePath(url, context.cwd);
        checkSqliteFile(
          path,
          'journal',
          { field: context.chosenBy ?? FLAG },
          { readOnly: context.readOnly === true },
        );
        // The embedded default journal, in its engine's folder (connectors/sqlite/journal/), opened
        // here rather than through BuiltInEngine.journal: it takes SQLite's own options (which flag
        // chose it, synchronous off, the stored expiry) and a path resolved against cwd above.
        const { SqliteJournal } = await import('../../connectors/sqlite/journal/sqlite-journal.ts');
        return await SqliteJournal.open(path, {
          readOnly: context.readOnly === true,
          chosenBy: context.chosenBy ?? FLAG,
          ...warn,
          ...(trust ? { trustStoredExpiry: true } : {}),
          ...(context.journalSyncOff === true ? { unsafeSynchronousOff: true } : {}),
        });
      }
      case 'memory': {
        if (url !== 'memory:') throw bad(url, 'must be exactly "memory:"');
        if (context.env.VITEST === undefined && context.env[ALLOW_MEMORY_ENV] !== '1') {
          throw bad(url, `is not durable; it is for tests only (set ${ALLOW_MEMORY_ENV}=1 to force)`);
        }
        const { MemoryJournal } = await import('../adapters/journal/memory/memory-journal.ts');
        return new MemoryJournal(warn);
      }
      case 'postgres':
      case 'postgresql':
      case 'mssql':
      case 'sqlserver': {
        checkServerUrl(url);
        // A server journal lives in its engine's folder (connectors/<engine>/journal/), reached
        // through its engine entry and loaded only when its URL is given.
        const { engineJournal } = await import('./built-in-engines.ts');
        return await engineJournal(urlEngine(url)!)!.open(url, password, {
          readOnly: context.readOnly === true,
          ...warn,
          ...(trust ? { leaseClock: 'caller' as const } : {}),
        });
      }
      default:
        throw bad(url, 'is not a journal URL (sqlite:///path, postgres://…, mssql://…)');
    }
  } catch (error) {
    if (isDponeError(error)) throw error;
    // An adapter that failed without a code: treat as unreachable, keep the driver error private.
    throw new DponeError(
      ERROR_CODES.JOURNAL_UNAVAILABLE,
      `the journal "${redactUrl(url)}" could not be opened`,
      {},
      { cause: error },
    );
  }
}
