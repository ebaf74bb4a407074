import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { withDigest } from '../evidence/evidence-digest.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { verifyEvidence } from '../evidence/evidence-verify.ts';
import { run as report } from '../cli/certify-report.ts';
import { capturedIo } from '../gate/fixtures/captured-io.ts';
import { acceptanceCells, sealEvidence } from '../gate/fixtures/certified-evidence.ts';
import { FIXTURE_PLAN } from '../gate/fixtures/fixture-plan.ts';
import { evidenceFilesToMerge, expectTheWholeRun } from './fixtures/merge-files.ts';
import { selectShard } from '../plan/planner.ts';
import { planDigest } from '../plan/plan-digest.ts';
import { mergeShards } from './shard-merge.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const cells = acceptanceCells();
const plan = { plan_digest: planDigest(cells.map((cell) => cell.id)), planned_cells: cells.length };
const whole = sealEvidence(cells, { run_id: 'whole' });

function shardOf(index: number, count = 3, seed = 42): Evidence {
  const sorted = [...cells].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sealEvidence(selectShard(sorted, { index, count }), {
    run_id: `shard-${index}`,
    seed,
    shard: { index, count },
    environment: { ...whole.environment, ...plan },
  });
}

const mergeFiles = (shards: readonly Evidence[]) =>
  evidenceFilesToMerge(shards, { name: 'shard', out: 'merged' }, dirs);

describe('certify merge', () => {
  it('merges 3 shards into the whole run: same cell ids and verdicts, and it verifies', async () => {
    const shards = [shardOf(2), shardOf(3), shardOf(1)];
    expect(shards.every((shard) => shard.cells.length > 0)).toBe(true);
    const { dir, run, evidence } = await mergeFiles(shards);
    expect(await run()).toBe(0);
    const merged = await evidence();
    expectTheWholeRun(merged, whole);
    expect(merged.shard).toBeUndefined();
    expect(verifyEvidence(merged)).toEqual({ ok: true, differences: [] });
    for (const file of ['index.html', 'summary.md', 'junit.xml'])
      expect(existsSync(join(dir, 'merged', file))).toBe(true);
  });

  it('refuses a missing shard, a repeated shard, and shards of another seed or scenario set', async () => {
    for (const shards of [
      [shardOf(1), shardOf(2)],
      [shardOf(1), shardOf(2), shardOf(2)],
      [shardOf(1), shardOf(2), shardOf(3, 3, 7)],
      [
        shardOf(1),
        shardOf(2),
        withDigest({
          ...shardOf(3),
          scenario_files: [{ name: 'race', file: 'scenarios/race.yaml' }],
        } as Evidence),
      ],
    ]) {
      const { run } = await mergeFiles(shards);
      await expect(run()).rejects.toMatchObject({ code: ERROR_CODES.INVALID_INPUT });
    }
  });

  it('refuses a shard that lost a cell or holds one of another shard', async () => {
    const withCells = (index: number, shardCells: Evidence['cells']): Evidence =>
      sealEvidence(shardCells, {
        run_id: `shard-${index}`,
        shard: { index, count: 3 },
        environment: { ...whole.environment, ...plan },
      });
    const short = withCells(2, shardOf(2).cells.slice(1));
    await expect((await mergeFiles([shardOf(1), short, shardOf(3)])).run()).rejects.toThrow(/plan|position/);
    const overlapping = withCells(2, [...shardOf(2).cells, shardOf(1).cells[0]!]);
    await expect((await mergeFiles([shardOf(1), overlapping, shardOf(3)])).run()).rejects.toThrow(
      /is in shard/,
    );
  });

  it('refuses shards that agree with each other but skipped a cell of the plan it derives itself', async () => {
    // A run that silently skipped a cell, and recorded a plan digest without it: the shards add up.
    const skipped = [...cells]
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .filter((cell) => cell.fault.kind !== 'intent-conflict');
    const ids = skipped.map((cell) => cell.id);
    const forged = { ...FIXTURE_PLAN, digest: planDigest(ids), cells: ids.length };
    const shard = (index: number): Evidence =>
      sealEvidence(selectShard(skipped, { index, count: 3 }), {
        run_id: `shard-${index}`,
        shard: { index, count: 3 },
        environment: { ...whole.environment, plan_digest: forged.digest, planned_cells: forged.cells },
        plan: forged,
      });
    const { run } = await mergeFiles([shard(1), shard(2), shard(3)]);
    await expect(run()).rejects.toThrow(/1 planned cell\(s\) missing: intent-conflict\/after-complete/);
  });

  it('refuses shards planned from a scenario file that is not the one on disk', async () => {
    const { dir, run } = await mergeFiles([shardOf(1), shardOf(2), shardOf(3)]);
    await writeFile(
      join(dir, 'scenarios/race.yaml'),
      'name: race\nfaults:\n  - kind: race\n    workers: 3\n',
    );
    await expect(run()).rejects.toThrow(
      /scenario file scenarios\/race.yaml is not the one the run planned from/,
    );
  });

  it('refuses to merge a shard that does not verify (exit 1)', async () => {
    const tampered = { ...shardOf(1), verdict: 'FAIL' as const };
    const { io, run } = await mergeFiles([tampered, shardOf(2), shardOf(3)]);
    expect(await run()).toBe(1);
    expect(io.out()).toMatch(/NOT verified: shard-0.json/);
  });
});

describe('certify report', () => {
  it('re-renders index.html, summary.md and junit.xml from an evidence file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dpone-report-'));
    dirs.push(dir);
    await writeFile(join(dir, 'evidence.json'), JSON.stringify(whole));
    const io = capturedIo(dir);
    expect(await report(['evidence.json', '--out', 'out'], io)).toBe(0);
    expect(await readFile(join(dir, 'out', 'summary.md'), 'utf8')).toContain('**PASS**');
    expect(existsSync(join(dir, 'out', 'index.html'))).toBe(true);
    expect(existsSync(join(dir, 'out', 'junit.xml'))).toBe(true);
  });

  it('counts the variant cells a shard listed as not run in its share of the plan, and keeps the list', () => {
    // Two planned cells of no-fence: one ran and caught it, the other is listed as not run.
    const ran = cells.find((cell) => cell.variant === 'no-fence')!;
    const skip = { id: `${ran.id.split('@')[0]}-again@no-fence`, variant: 'no-fence', caught_by: ran.id };
    const ids = [...cells.map((cell) => cell.id), skip.id].sort();
    const environment = { ...whole.environment, plan_digest: planDigest(ids), planned_cells: ids.length };
    const shard = (index: number, count: number, dropSkip = false) => {
      const mine = new Set(selectShard(ids, { index, count }));
      return sealEvidence(
        cells.filter((cell) => mine.has(cell.id)),
        {
          run_id: `shard-${index}`,
          shard: { index, count },
          environment,
          ...(mine.has(skip.id) && !dropSkip ? { skipped_variant_cells: [skip] } : {}),
        },
      );
    };
    const merged = mergeShards([shard(1, 2), shard(2, 2)]);
    expect(merged.skipped_variant_cells).toEqual([skip]);
    expect(merged.cells).toHaveLength(cells.length);
    expect(merged.sensitivity.find((record) => record.variant === 'no-fence')).toMatchObject({
      caught: true,
      cells_run: 1,
      cells_skipped: 1,
    });
    // The shard that should list it does not: the merged ids are not the plan.
    const owner = selectShard(ids, { index: 1, count: 2 }).includes(skip.id) ? 1 : 2;
    expect(() => mergeShards([shard(1, 2, owner === 1), shard(2, 2, owner === 2)])).toThrow(
      /sits at position|plan_digest differs/,
    );
  });
});
