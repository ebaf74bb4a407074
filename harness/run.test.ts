import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Evidence } from './evidence/evidence-types.ts';
import { runCertification } from './run.ts';

const dir = mkdtempSync(join(tmpdir(), 'dpone-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('certify run, end to end on the embedded route', () => {
  it('runs one real crash cell and one real race cell to PASS and writes evidence', async () => {
    const scenario = join(dir, 'e2e.yaml');
    writeFileSync(
      scenario,
      'name: e2e\nvariants: false\nfaults:\n  - kind: crash\n    depth: 1\n    random: 0\n  - kind: race\n    workers: 2\n',
    );
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
});
