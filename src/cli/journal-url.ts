import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../contracts/errors.ts';
import { redactUrl, urlPasswordProblem } from '../contracts/redact-url.ts';
import { FILE_URL_SCHEMES, urlEngine } from './route-names.ts';
import type { JournalWarn, TargetCommitJournalPort } from '../ports/journal.ts';
import type { JournalEngine } from '../ports/connector-plugin.ts';
import { BUILT_IN_CONNECTORS, builtInConnector } from './engine-table.ts';

/** Where a journal URL is opened from: a file journal's relative path resolves against `cwd`. */
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
  /** UNSAFE, the harness's `journal-sync-off`/`-normal` variants only: a file journal that does not sync its commits. */
  readonly journalSynchronous?: 'OFF' | 'NORMAL';
  /**
   * Which flag, workload key or default named this journal (`--journal` when not given): a refused
   * or damaged journal file says so.
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

/** The folder engine keeping the journal a URL names (its scheme names the engine), if any. */
function journalEngineOf(url: string): JournalEngine | undefined {
  const engine = urlEngine(url);
  return engine === null ? undefined : builtInConnector(engine)?.journal;
}

/** The journal URL forms the folder engines open (`<engine>:///path` for a file, `<engine>://…` for a server), for a refusal to list. */
function journalUrlForms(): string {
  return Object.entries(BUILT_IN_CONNECTORS)
    .flatMap(([name, engine]) =>
      engine.journal ? [engine.journal.kind === 'file' ? `${name}:///path` : `${name}://…`] : [],
    )
    .join(', ');
}

/**
 * The local file a file journal's URL names (a relative path against `cwd`), or null for a server
 * or memory journal. A bad URL is DPONE_INVALID_INPUT naming `--journal`.
 */
export function journalFilePath(url: string, cwd: string): string | null {
  const engine = journalEngineOf(url);
  return engine?.filePath ? engine.filePath(url, cwd, FLAG) : null;
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
 * Opens the journal a `--journal` URL names, through the engine its scheme names
 * (ConnectorPlugin.journal: a file journal's `<engine>:///abs/path` or `<engine>:relative/path`,
 * relative to `context.cwd`, the embedded default among them; a server's `<engine>://…`), or:
 * - `memory:` — in-process and NOT durable: only inside the test runner or with
 *   DPONE_ALLOW_MEMORY_JOURNAL=1, because it would advertise protection it cannot give.
 * A bad URL is DPONE_INVALID_INPUT naming `--journal`; its text is redacted of any password.
 */
export async function openJournal(
  url: string,
  context: JournalOpenContext,
): Promise<TargetCommitJournalPort> {
  const problem = urlPasswordProblem(url, FILE_URL_SCHEMES);
  const warn = context.warn ? { warn: context.warn } : {};
  if (problem) throw bad(url, `${problem}: put the password in ${JOURNAL_PASSWORD_ENV}`);
  try {
    if (/^memory:/i.test(url)) {
      if (url !== 'memory:') throw bad(url, 'must be exactly "memory:"');
      if (context.env.VITEST === undefined && context.env[ALLOW_MEMORY_ENV] !== '1') {
        throw bad(url, `is not durable; it is for tests only (set ${ALLOW_MEMORY_ENV}=1 to force)`);
      }
      const { MemoryJournal } = await import('../adapters/journal/memory/memory-journal.ts');
      return new MemoryJournal(warn);
    }
    const engine = journalEngineOf(url);
    if (engine === undefined) throw bad(url, `is not a journal URL (${journalUrlForms()})`);
    if (engine.kind === 'server') checkServerUrl(url);
    // A server journal's password comes from the environment; a file journal takes none.
    const password = engine.kind === 'server' ? context.env[JOURNAL_PASSWORD_ENV] || undefined : undefined;
    return await engine.open(url, password, {
      readOnly: context.readOnly === true,
      cwd: context.cwd,
      chosenBy: context.chosenBy ?? FLAG,
      ...warn,
      ...(context.trustHolderClock === true ? { leaseClock: 'caller' as const } : {}),
      ...(context.journalSynchronous ? { unsafeSynchronous: context.journalSynchronous } : {}),
    });
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
