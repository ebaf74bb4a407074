import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import { checkedCell } from '../checkers/fixtures/checked-cell.ts';
import { progressLine, progressReporter } from './progress-reporter.ts';

function sink() {
  let text = '';
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { stdout, text: () => text };
}

const cell = (id: string, verdict: CellEvidence['verdict'], variant: string | null = null): CellEvidence => ({
  ...checkedCell(id, variant, verdict),
  duration_ms: 1,
});

describe('progress reporter', () => {
  it('shows done/total, elapsed, estimate and failures', () => {
    expect(progressLine(5, 20, 10_000, 1)).toBe('5/20 cells  elapsed 10.0s  eta 30.0s  failures 1');
  });

  it('shows no estimate before 5 % of the cells are done, and the variant cells skipped', () => {
    expect(progressLine(4, 100, 10_000, 0)).toBe('4/100 cells  elapsed 10.0s  eta …  failures 0');
    expect(progressLine(5, 100, 10_000, 0, 3)).toBe(
      '5/100 cells  elapsed 10.0s  eta 190.0s  failures 0  (3 variant cells skipped once caught)',
    );
  });

  it('in CI writes plain lines: each non-PASS real cell, never a terminal escape', async () => {
    const out = sink();
    const reporter = progressReporter({ stdout: out.stdout, env: { CI: 'true' }, interactive: false });
    await reporter.onRunStart?.({
      runId: 'r',
      route: 'source-to-target',
      seed: 1,
      totalCells: 4,
      dir: 'd',
      startedAtMs: Date.now(),
    });
    await reporter.onCellDone?.(cell('a', 'PASS'));
    await reporter.onCellDone?.({ ...checkedCell('b', null, 'FAIL', ['mutations']), duration_ms: 1 });
    await reporter.onCellDone?.(cell('c@no-fence', 'FAIL', 'no-fence'));
    // A variant cell not run once its variant was caught leaves the total, silently but counted.
    await reporter.onCellSkipped?.({ id: 'd@no-fence', variant: 'no-fence', caught_by: 'c@no-fence' });
    const text = out.text();
    // The failing cell with the check that says why, so a CI log shows the reason.
    expect(text).toMatch(/^FAIL b: mutations: .+$/m);
    expect(text).not.toContain('FAIL c@no-fence');
    expect(text).not.toContain('d@no-fence');
    expect(text).toMatch(/3\/3 cells .* failures 1 {2}\(1 variant cells skipped once caught\)\n/);
    expect(text).not.toContain('\x1b[');
  });

  it('on a terminal redraws one status line', async () => {
    const out = sink();
    const reporter = progressReporter({ stdout: out.stdout, env: {}, interactive: true });
    await reporter.onRunStart?.({
      runId: 'r',
      route: 'source-to-target',
      seed: 1,
      totalCells: 2,
      dir: 'd',
      startedAtMs: Date.now(),
    });
    await reporter.onCellDone?.(cell('a', 'PASS'));
    expect(out.text()).toContain('\r\x1b[2K1/2 cells');
  });

  it('at the end names why the environment could not run, and a variant no cell ran as not run', async () => {
    const out = sink();
    const reporter = progressReporter({ stdout: out.stdout, env: { CI: 'true' }, interactive: false });
    const unavailable = 'local provider: SQL Server cannot run on this machine';
    const ran = cell('a@no-seal', 'PASS', 'no-seal');
    const skipped = cell('a@no-fence', 'UNVERIFIED', 'no-fence');
    const evidence = {
      verdict: 'UNVERIFIED',
      duration_ms: 10,
      environment: { unavailable },
      cells: [cell('a', 'UNVERIFIED'), ran, skipped],
      sensitivity: [
        { variant: 'no-seal', caught: false, cells_run: 1, cells_failed: 0 },
        { variant: 'no-fence', caught: false, cells_run: 1, cells_failed: 0 },
      ],
    } as unknown as Evidence;
    await reporter.onRunEnd?.(evidence, 'd', null);
    expect(out.text()).toContain(`environment UNVERIFIED: ${unavailable}\n`);
    expect(out.text()).toContain('variant no-seal: SURVIVED: ran 1 cells, none caught it');
    expect(out.text()).toContain('variant no-fence: not run: 0 of 1 cells could run');
    expect(out.text()).toContain('0/2 unsafe variants killed; SURVIVED: no-seal; 1 not run (');
  });
});
