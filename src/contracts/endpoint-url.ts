import { invalidField } from './errors.ts';

/**
 * What the server connectors' URL parsers share (each engine's scheme, in its folder). Every refusal is
 * INVALID_INPUT naming the workload field and never echoes the URL: it may carry a user or a password.
 */

/** `text` as a URL of one of `protocols` (e.g. `db:`); `scheme` names them in the refusal. */
export function parseEndpointUrl(
  text: string,
  field: string,
  protocols: readonly string[],
  scheme: string,
): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField(field, 'is not a URL');
  }
  if (!protocols.includes(url.protocol)) throw invalidField(field, `is not ${scheme}`);
  return url;
}

/** The database the URL's path names (`/db` → `db`), decoded; empty when the path is. */
export function urlDatabase(url: URL): string {
  return decodeURIComponent(url.pathname.replace(/^\//, ''));
}

/** A positive whole-number query parameter (a timeout in ms); `fallback` when it is absent. */
export function positiveIntParam(q: URLSearchParams, name: string, fallback: number, field: string): number {
  const value = q.get(name);
  if (value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw invalidField(field, `has a bad ${name}`);
  return n;
}
