import { invalidInput } from '../contracts/errors.ts';
import type { JournalDescription } from '../core/deployment-policy.ts';
import { urlEngine } from './route-names.ts';
import { builtInConnector } from './engine-table.ts';

/**
 * Where a run's journal is and whether it outlives the worker. A journal the worker can lose with
 * itself (a file in the pod, a deleted state folder) voids the duplicate-write guarantee, so only a
 * durable journal lets a run claim `protection: enforced`:
 * - a server journal's URL (ConnectorPlugin.journal kind `server`) is durable;
 * - a file journal (kind `file`: the embedded default) is durable only when its URL says so:
 *   `?durability=shared` states that it lives on storage every retry of the task sees (a
 *   persistent or shared volume) — the operator's claim,
 *   which dpone cannot check; `?durability=local` (the default) says it may die with the worker;
 * - `memory:` never is.
 */
const SHARED = 'shared';
const LOCAL = 'local';

function durability(url: string, field: string): string {
  const query = url.split('#', 1)[0]!.split('?')[1] ?? '';
  const params = new URLSearchParams(query);
  const value = params.get('durability') ?? LOCAL;
  if (value !== SHARED && value !== LOCAL) {
    throw invalidInput(`${field} has a bad durability (${SHARED} or ${LOCAL})`, { field });
  }
  return value;
}

/** Safe location of a server URL: scheme, host, port and database — never user, password or options. */
function serverLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return url.split(':', 1)[0]!;
  }
}

export function describeJournal(url: string, cwd: string, field = '--journal'): JournalDescription {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase() ?? 'unknown';
  const engine = urlEngine(url);
  const journal = engine === null ? undefined : builtInConnector(engine)?.journal;
  if (engine !== null && journal?.filePath) {
    const path = journal.filePath(url, cwd, field);
    const shared = durability(url, field) === SHARED;
    return {
      kind: engine,
      location: `${engine}://${path}`,
      durable: shared,
      reason: shared
        ? 'a journal file marked ?durability=shared: it lives on storage every retry of the task sees'
        : 'a local journal file (not marked ?durability=shared) can be lost with the worker (a pod, a ' +
          'deleted state folder), and a lost journal voids the duplicate-write guarantee',
    };
  }
  if (scheme === 'memory') {
    return {
      kind: 'memory',
      location: 'memory:',
      durable: false,
      reason: 'an in-process journal dies with the worker',
    };
  }
  return {
    kind: engine ?? scheme,
    location: serverLocation(url),
    durable: true,
    reason: 'a journal server outlives the worker',
  };
}
