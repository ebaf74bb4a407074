import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { DponeError } from '../../../src/contracts/errors.ts';
import { invalidInput } from '../../../src/contracts/errors.ts';
import { redactUrl } from '../../../src/contracts/redact-url.ts';

function bad(url: string, field: string, why: string): DponeError {
  return invalidInput(`${field} "${redactUrl(url)}" ${why}`, { field });
}

/**
 * The file a `sqlite:` journal URL names: `sqlite:///abs/path` or `sqlite:relative/path` (relative
 * to `cwd`), percent-escapes decoded. `sqlite://HOST/…` names a host, which a local file has not; a
 * refusal names `field` (the flag that gave the URL).
 */
export function sqliteJournalPath(url: string, cwd: string, field: string): string {
  const rest = url.slice('sqlite:'.length);
  let path: string;
  if (rest.startsWith('//')) {
    if (!rest.startsWith('///'))
      throw bad(url, field, 'must be sqlite:///absolute/path or sqlite:relative/path');
    path = rest.slice(2);
  } else {
    path = rest;
  }
  path = path.split(/[?#]/, 1)[0] ?? '';
  try {
    path = decodeURIComponent(path);
  } catch {
    throw bad(url, field, 'has a malformed percent-escape');
  }
  if (path === '' || path.endsWith('/')) throw bad(url, field, 'names no journal file');
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * The shadow journal's file: beside the SQLite journal, `journal.db` → `journal.shadow.db`. Not the
 * journal file itself: the protocol's journal refuses a file that exists without its tables (a
 * lost journal is never re-created silently), so records in it would stop a later enforced run.
 */
export function sqliteShadowPath(journal: string): string {
  const name = basename(journal);
  const dot = name.lastIndexOf('.');
  return join(
    dirname(journal),
    dot > 0 ? `${name.slice(0, dot)}.shadow${name.slice(dot)}` : `${name}.shadow`,
  );
}
