import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withDigest } from './evidence/evidence-digest.ts';
import type { Evidence } from './evidence/evidence-types.ts';
import { verifyEvidence } from './evidence/evidence-verify.ts';
import { catches } from './checkers/sensitivity.ts';
import { runCertification } from './run.ts';
import { writeCrashAndRace } from './runner/fixtures/crash-and-race.ts';

const dir = mkdtempSync(join(tmpdir(), 'dpone-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('certify run, end to end on the embedded route', () => {
  it('runs one real crash cell and one real race cell to PASS and writes evidence', async () => {
    const scenario = writeCrashAndRace(dir, 'e2e');
    const crashCell = 'e2e/d1/target.commit:after#1';
    const result = await runCertification({
      scenarioFiles: [scenario],
      out: join(dir, 'out'),
      onlyCells: [crashCell, 'e2e/2'],
      concurrency: 2,
      reporters: [],
      cwd: dir,
    });
    const evidence = JSON.parse(readFileSync(join(dir, 'out', 'evidence.json'), 'utf8')) as Evidence;
    expect(evidence.cells.map((cell) => [cell.id, cell.verdict])).toEqual([
      ['e2e/2', 'PASS'],
      [crashCell, 'PASS'],
    ]);
    const crash = evidence.cells.find((cell) => cell.id === crashCell)!;
    // Killed from outside at the point, then recovered by the settle worker: one mutation.
    expect(crash.attempts[0]).toMatchObject({
      role: 'first',
      signal: 'SIGKILL',
      last_point: 'target.commit:after',
    });
    expect(crash.attempts.at(-1)).toMatchObject({ role: 'settle', exit_code: 0 });
    expect(crash.target).toMatchObject({ mutations: 1, duplicate_rows: 0, row_parity: true });
    expect(crash.journal).toMatchObject({ final_state: 'COMPLETE', history_legal: true });
    const race = evidence.cells.find((cell) => cell.id === 'e2e/2')!;
    expect(race.attempts.filter((a) => a.role.startsWith('race-'))).toHaveLength(2);
    expect(race.target?.mutations).toBe(1);
    expect(evidence.verdict).toBe('PASS');
    expect(result.exitCode).toBe(0);
    expect(evidence.digest).toMatch(/^sha256:/);
  });

  it('runs the cells of a variant until one catches it, lists the rest as not run, and verify checks each skip', async () => {
    const scenario = join(dir, 'skips.yaml');
    writeFileSync(scenario, 'name: skips\nfaults:\n  - kind: crash\n    depth: 1\n    random: 0\n');
    // One cell at a time: once a variant is caught, none of its cells starts again.
    await runCertification({
      scenarioFiles: [scenario],
      out: join(dir, 'skips-out'),
      concurrency: 1,
      reporters: [],
      cwd: dir,
    });
    const evidence = JSON.parse(readFileSync(join(dir, 'skips-out', 'evidence.json'), 'utf8')) as Evidence;
    const skipped = evidence.skipped_variant_cells ?? [];
    const byId = new Map(evidence.cells.map((cell) => [cell.id, cell]));
    expect(skipped.length).toBeGreaterThan(0);
    for (const skip of skipped) {
      expect(byId.has(skip.id)).toBe(false);
      expect(byId.get(skip.caught_by)).toMatchObject({ variant: skip.variant });
      expect(catches(byId.get(skip.caught_by)!)).toBe(true);
    }
    for (const record of evidence.sensitivity) {
      const own = evidence.cells.filter((cell) => cell.variant === record.variant);
      // Each variant: at most one catching cell ran, and it was the last of its cells to run.
      expect(own.filter(catches).length).toBeLessThanOrEqual(1);
      if (record.caught) expect(catches(own.at(-1)!)).toBe(true);
    }
    // Run and not run, every variant accounts for the same planned cells (the sensitive crash points).
    const planned = new Set(
      evidence.sensitivity.map((r) => r.cells_run + (r.cells_not_run ?? 0) + (r.cells_skipped ?? 0)),
    );
    expect([...planned]).toEqual([
      evidence.cells.filter((cell) => cell.variant === 'io-before-intent').length,
    ]);
    expect(verifyEvidence(evidence).ok).toBe(true);
    // A skip that names a cell that did not catch its variant (a real cell) is refused.
    const { digest: _digest, ...content } = evidence;
    const forged = withDigest({
      ...content,
      skipped_variant_cells: skipped.map((skip, index) =>
        index === 0 ? { ...skip, caught_by: evidence.cells.find((cell) => cell.variant === null)!.id } : skip,
      ),
    } as Evidence);
    expect(verifyEvidence(forged).differences.join('\n')).toMatch(/skipped_variant_cells: .*does not catch/);
  }, 180_000); // one cell at a time through every variant of the catalogue: about a minute alone
});
