import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Evidence } from '../evidence/evidence-types.ts';
import { verifyEvidence } from '../evidence/evidence-verify.ts';
import { runCertification } from '../run.ts';
import { writeCrashAndRace } from './fixtures/crash-and-race.ts';

const dir = mkdtempSync(join(tmpdir(), 'dpone-reference-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A deliberately broken BUILD: every worker of the run, the reference run included, takes the
 * `unmarked-commit` flaw (the variables a worker inherits from the harness), so the system under
 * test fails its own clean run (exit 12) with its rows in the target. That used to stop `certify
 * run` with exit 70 DPONE_INTERNAL and no evidence.
 */
async function withBrokenBuild<T>(body: () => Promise<T>): Promise<T> {
  const saved = { harness: process.env.DPONE_HARNESS, variant: process.env.DPONE_UNSAFE_VARIANT };
  process.env.DPONE_HARNESS = '1';
  process.env.DPONE_UNSAFE_VARIANT = 'unmarked-commit';
  try {
    return await body();
  } finally {
    for (const [name, value] of [
      ['DPONE_HARNESS', saved.harness],
      ['DPONE_UNSAFE_VARIANT', saved.variant],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  }
}

describe('a reference run that fails', () => {
  it('is a FAIL cell with its evidence (what the run did, what the target shows), never a harness error', async () => {
    const scenario = writeCrashAndRace(dir, 'broken');
    const result = await withBrokenBuild(() =>
      runCertification({
        scenarioFiles: [scenario],
        out: join(dir, 'out'),
        concurrency: 2,
        reporters: [],
        cwd: dir,
      }),
    );
    expect(result.exitCode).toBe(1);
    const evidence = JSON.parse(readFileSync(join(dir, 'out', 'evidence.json'), 'utf8')) as Evidence;
    expect(evidence.verdict).toBe('FAIL');
    // Nothing traced could be planned: the crash cells are replaced by the reference cell; the race stays.
    expect(evidence.cells.map((cell) => cell.id)).toEqual(['broken/2', 'broken/reference']);
    const reference = evidence.cells.find((cell) => cell.id === 'broken/reference')!;
    expect(reference.verdict).toBe('FAIL');
    expect(reference.fault).toMatchObject({
      kind: 'reference',
      recorded: expect.stringMatching(/^exit 12 /),
    });
    expect(reference.checks.find((check) => check.name === 'reference-run')?.detail).toMatch(
      /the recorded reference run ended exit 12 DPONE_TARGET_COMMIT_PRE_COMMIT_FAILED after .*: no cell of this workload could be planned/,
    );
    // What the target shows: the rows landed although the run failed, and the journal never completed.
    expect(reference.target).toMatchObject({ mutations: 1 });
    expect(reference.checks.find((check) => check.name === 'outcome')).toMatchObject({ verdict: 'FAIL' });
    expect(Object.values(evidence.plan!.traces)[0]).toMatchObject({
      clean: [],
      reference_failure: { exit_code: 12, error_code: 'DPONE_TARGET_COMMIT_PRE_COMMIT_FAILED' },
    });
    // The plan check re-derives exactly these cells from the stored failure.
    expect(verifyEvidence(evidence).differences).toEqual([]);
  });
});
