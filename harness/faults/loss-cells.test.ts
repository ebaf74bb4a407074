import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recheckCell } from '../checkers/recheck-cell.ts';
import { provider } from '../env/embedded-provider.ts';
import type { StartedEnvironment } from '../env/environment.ts';
import type { CellEvidence } from '../evidence/evidence-types.ts';
import { planCells } from '../plan/planner.ts';
import { loadRoute } from '../routes/route-registry.ts';

const route = await loadRoute('sqlite');
import { runCell } from '../runner/cell-runner.ts';
import { parseScenario } from '../scenario/scenario-loader.ts';
import { SQLITE_CLEAN_BOOK } from './fixtures/clean-trace.ts';

/**
 * Loss cells end to end on the embedded route against the certified target: real workers, the
 * real loss, the real checks. A lost, rolled-back or forked journal and a lost fence must all end
 * with the one mutation the fence proves — and every such cell re-checks from its evidence alone.
 */
const dir = mkdtempSync(join(tmpdir(), 'dpone-loss-cells-'));
let environment: StartedEnvironment;
beforeAll(async () => {
  const started = await provider.start({ env: process.env, workDir: dir, services: [] });
  if (started.status !== 'started') throw new Error('embedded environment must start');
  environment = started.environment;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCENARIO = `name: loss
faults:
  - kind: journal-loss
  - kind: fence-loss
    modes: [rename]
`;

async function cell(id: string): Promise<CellEvidence> {
  const cells = await planCells([{ file: 'loss.yaml', scenario: parseScenario(SCENARIO, 'loss.yaml') }], {
    variants: route.unsafeVariants,
    lossModes: route.lossModes!,
    traces: () => SQLITE_CLEAN_BOOK,
  });
  const planned = cells.find((candidate) => candidate.id === id);
  if (!planned) throw new Error(`no cell ${id}`);
  return runCell(planned, { route, environment, cellsDir: join(dir, 'cells'), reproduce: () => 'replay' });
}

describe('loss cells on the embedded route', () => {
  it.each([
    'loss/wipe/target.commit:after#1',
    'loss/delete/cas:TARGET_COMMITTED->COMPLETE:after#1',
    'loss/rollback/target.commit:after#1',
    'loss/fork/cas:PREPARED->COMMITTING:after#1',
    'loss/wal-loss/target.commit:after#1',
    'loss/rename/target.commit:after#1',
  ])('%s: the loss took effect, one mutation remains, and the evidence re-checks', async (id) => {
    const evidence = await cell(id);
    const failed = evidence.checks.filter((check) => check.verdict !== 'PASS');
    expect(failed).toEqual([]);
    expect(evidence.target?.mutations).toBe(1);
    expect(evidence.loss?.inspect?.journal_unchanged).not.toBe(false);
    expect(recheckCell(evidence).differences).toEqual([]);
  });

  it('a fork: the second deployment used its own journal, and its attempt says so', async () => {
    const evidence = await cell('loss/fork/target.commit:before#1');
    expect(evidence.attempts.map((attempt) => [attempt.role, attempt.journal ?? 'cell'])).toEqual([
      ['first', 'cell'],
      ['fork', 'fork'],
      ['settle', 'cell'],
    ]);
    expect(evidence.loss?.fork_journal?.history.length).toBeGreaterThan(0);
    expect(evidence.verdict).toBe('PASS');
  });
});
