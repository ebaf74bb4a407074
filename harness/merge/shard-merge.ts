import { createHash } from 'node:crypto';
import { invalidInput } from '../../src/contracts/errors.ts';
import { buildSensitivity, runVerdict } from '../checkers/sensitivity.ts';
import { canonicalJson } from '../evidence/canonical-json.ts';
import { withDigest } from '../evidence/evidence-digest.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { accountedCellIds } from '../evidence/evidence-types.ts';
import { planDigest } from '../plan/plan-digest.ts';

const byId = (a: { readonly id: string }, b: { readonly id: string }): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

function refuse(message: string): never {
  throw invalidInput(`cannot merge: ${message}`, { field: 'FILE' });
}

/** Every shard must describe the same run: schema, seed, route, provider, versions, scenarios, plan. */
function sameRun(shards: readonly Evidence[]): void {
  const first = shards[0]!;
  const facts = (evidence: Evidence): Record<string, unknown> => ({
    schema: evidence.schema,
    seed: evidence.seed,
    route: evidence.route,
    provider: evidence.provider,
    runtime_version: evidence.environment.runtime_version,
    connector_version: evidence.environment.connector_version,
    plan_digest: evidence.environment.plan_digest,
    planned_cells: evidence.environment.planned_cells,
    shard_count: evidence.shard?.count,
    // The runner records which scenario files it planned from; shards of another set cannot merge.
    scenario_files: canonicalJson((evidence as { scenario_files?: unknown }).scenario_files ?? null),
    // The scenario digests, seed override and recorded traces the shard planned from.
    plan: canonicalJson(evidence.plan ?? null),
  });
  const expected = facts(first);
  for (const shard of shards.slice(1)) {
    const got = facts(shard);
    for (const [field, value] of Object.entries(expected)) {
      if (got[field] !== value)
        refuse(
          `shard ${shard.shard?.index ?? '?'} has ${field} ${String(got[field])}, shard ${first.shard?.index ?? '?'} has ${String(value)}`,
        );
    }
  }
}

/** Shards 1..N each exactly once. */
function completeCover(shards: readonly Evidence[]): number {
  const count = shards[0]!.shard?.count;
  if (count === undefined) refuse('an input is a whole run, not a shard (it has no shard field)');
  const seen = shards.map((evidence) => evidence.shard!.index).sort((a, b) => a - b);
  const duplicate = seen.find((index, position) => seen[position + 1] === index);
  if (duplicate !== undefined) refuse(`shard ${duplicate}/${count} is given twice`);
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !seen.includes(index));
  if (missing.length > 0)
    refuse(`shard(s) ${missing.map((index) => `${index}/${count}`).join(', ')} missing`);
  return count;
}

/**
 * Combines the shards of one run into the evidence of the whole run: cells sorted by id, the
 * sensitivity records, run verdict and digest recomputed, so it verifies as if run whole. Refuses
 * shards of different runs (seed, route, provider, versions, plan), a missing or repeated shard,
 * overlapping cells, and cells that are not where `--shard I/N` would have put them.
 */
export function mergeShards(shards: readonly Evidence[]): Evidence {
  if (shards.length === 0) refuse('no evidence given');
  sameRun(shards);
  const count = completeCover(shards);
  const owner = new Map<string, number>();
  // Each shard's cells and the variant cells it listed as not run (caught already) are its share.
  for (const shard of shards)
    for (const id of accountedCellIds(shard)) {
      const other = owner.get(id);
      if (other !== undefined) refuse(`cell ${id} is in shard ${other} and shard ${shard.shard!.index}`);
      owner.set(id, shard.shard!.index);
    }
  const cells = shards.flatMap((shard) => shard.cells).sort(byId);
  const skipped = shards.flatMap((shard) => shard.skipped_variant_cells ?? []).sort(byId);
  const ids = [...owner.keys()].sort();
  ids.forEach((id, position) => {
    if (owner.get(id) !== (position % count) + 1)
      refuse(
        `cell ${id} sits at position ${position} of the merged plan, which belongs to shard ${(position % count) + 1}, not ${owner.get(id)}: a shard is missing cells or comes from another plan`,
      );
  });
  const first = shards[0]!;
  const planned = first.environment.plan_digest;
  if (typeof planned === 'string' && planDigest(ids) !== planned)
    refuse('the merged cells are not the planned cells (plan_digest differs)');
  const variants = [...new Set(shards.flatMap((shard) => shard.sensitivity.map((record) => record.variant)))];
  const sensitivity = buildSensitivity(cells, variants, skipped);
  const runIds = shards.map((shard) => shard.run_id).sort();
  const { shard: _shard, digest: _digest, skipped_variant_cells: _skipped, ...whole } = first;
  return withDigest({
    ...whole,
    run_id: `merged-${createHash('sha256').update(runIds.join('\n')).digest('hex').slice(0, 12)}`,
    started_at: shards.map((shard) => shard.started_at).sort()[0]!,
    duration_ms: Math.max(...shards.map((shard) => shard.duration_ms)),
    environment: { ...first.environment, merged_from: runIds },
    verdict: runVerdict(cells, sensitivity),
    cells,
    sensitivity,
    ...(skipped.length > 0 ? { skipped_variant_cells: skipped } : {}),
  });
}
