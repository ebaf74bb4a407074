import { createHash } from 'node:crypto';
import { canonicalJson } from '../evidence/canonical-json.ts';

/**
 * The identity of a whole plan: sha256 over the sorted ids of every planned cell (all shards).
 * A runner that stores it as `environment.plan_digest` (with `environment.planned_cells`) lets
 * `certify merge` prove the shards add up to exactly that plan.
 */
export function planDigest(cellIds: readonly string[]): string {
  const sorted = [...cellIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `sha256:${createHash('sha256').update(canonicalJson(sorted)).digest('hex')}`;
}
