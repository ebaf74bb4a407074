import { describe, expect, it } from 'vitest';
import { recheckCell } from '../../../harness/checkers/recheck-cell.ts';
import { embeddedCells } from './embedded-cells.test-support.ts';

/**
 * Loss cells end to end on the embedded route against the certified target: real workers, the
 * real loss, the real checks. A lost, rolled-back or forked journal and a lost fence must all end
 * with the one mutation the fence proves — and every such cell re-checks from its evidence alone.
 */
const SCENARIO = `name: loss
faults:
  - kind: journal-loss
  - kind: fence-loss
    modes: [rename]
`;

const cell = await embeddedCells('loss.yaml', SCENARIO);

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
