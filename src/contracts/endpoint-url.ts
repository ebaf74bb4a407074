import type { DponeError } from './errors.ts';
import { invalidInput } from './errors.ts';

/**
 * What the server connectors' URL parsers share (each engine's scheme, in its folder). Every refusal is
 * INVALID_INPUT naming the workload field and never echoes the URL: it may carry a user or a password.
 * A refusal's words begin with `subject`: the field itself (`target.url has a bad …`) unless a
 * parser names the URL otherwise (a journal's `the … journal URL has a bad …`, field `--journal`).
 */

/** The refusal of the URL in `field`, its message `subject why`. */
export function refusedUrl(field: string, why: string, subject: string = field): DponeError {
  return invalidInput(`${subject} ${why}`, { field });
}

/** `text` as a URL of one of `protocols` (e.g. `db:`); `scheme` names them in the refusal. */
export function parseEndpointUrl(
  text: string,
  field: string,
  protocols: readonly string[],
  scheme: string,
  subject: string = field,
): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refusedUrl(field, 'is not a URL', subject);
  }
  if (!protocols.includes(url.protocol)) throw refusedUrl(field, `is not ${scheme}`, subject);
  return url;
}

/** The database the URL's path names (`/db` → `db`), decoded; empty when the path is. */
export function urlDatabase(url: URL): string {
  return decodeURIComponent(url.pathname.replace(/^\//, ''));
}

/** A positive whole-number query parameter (a timeout in ms); `fallback` when it is absent. */
export function positiveIntParam(
  q: URLSearchParams,
  name: string,
  fallback: number,
  field: string,
  subject: string = field,
): number {
  const value = q.get(name);
  if (value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw refusedUrl(field, `has a bad ${name}`, subject);
  return n;
}
