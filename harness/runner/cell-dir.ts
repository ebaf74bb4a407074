import { createHash } from 'node:crypto';

/** A folder name for a cell id: readable, filesystem-safe, and unique (a short hash of the id). */
export function cellDirName(id: string): string {
  const readable = id.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
  return `${readable}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
}
