import { describe, expect, it } from 'vitest';
import type { JournalSnapshot } from '../evidence/evidence-types.ts';
import { historyViolations, journalHistoryChecker, journalSnapshot } from './journal-history-checker.ts';
import { checkedRuns, intentItem } from './fixtures/sample-evidence.ts';

type Item = JournalSnapshot['history'][number];

async function legalSnapshot(): Promise<JournalSnapshot> {
  return journalSnapshot((await checkedRuns()).journal);
}

function edited(snapshot: JournalSnapshot, change: (history: Item[]) => Item[]): JournalSnapshot {
  const history = change(snapshot.history.map((item) => ({ ...item })));
  const last = history.at(-1);
  return { ...snapshot, history, final_state: last?.to_state ?? null, version: last?.version ?? null };
}

function check(snapshot: JournalSnapshot) {
  return journalHistoryChecker.check({
    target: null,
    journal: snapshot,
    attempts: [],
    expectation: { end: 'complete' },
  });
}

const indexOf = (history: Item[], to: string) =>
  history.findIndex((item) => item.kind === 'transition' && item.to_state === to);

/** An edit that patches the item at the index `at` finds. */
const replaced =
  (at: (history: Item[]) => number, patch: Partial<Item>) =>
  (history: Item[]): Item[] => {
    const index = at(history);
    history[index] = { ...history[index]!, ...patch };
    return history;
  };

describe('journal history checker', () => {
  it('passes the history of a real clean run, which carries the fence proof on TARGET_COMMITTED', async () => {
    const snapshot = await legalSnapshot();
    expect(snapshot.history_legal).toBe(true);
    expect(snapshot.history.find((item) => item.to_state === 'TARGET_COMMITTED')?.fence_status).toBe(
      'committed',
    );
    expect(check(snapshot)).toMatchObject({ verdict: 'PASS' });
  });

  it.each<[string, (history: Item[]) => Item[], string]>([
    [
      'a skipped version',
      (history) => history.map((item, index) => (index >= 3 ? { ...item, version: item.version + 1 } : item)),
      'skipped from v3',
    ],
    ['a version that goes backward', replaced(() => 4, { version: 2 }), 'went backward'],
    [
      'a transition not in the state table',
      replaced((history) => indexOf(history, 'COMMITTING'), { to_state: 'COMPLETE' }),
      'illegal transition PREPARED -> COMPLETE',
    ],
    [
      'TARGET_COMMITTED without fence_status committed on that transition',
      replaced((history) => indexOf(history, 'TARGET_COMMITTED'), { fence_status: 'unknown' }),
      'TARGET_COMMITTED without fence_status committed',
    ],
  ])('fails %s', async (_, change, detail) => {
    expect(check(edited(await legalSnapshot(), change))).toMatchObject({
      verdict: 'FAIL',
      detail: expect.stringContaining(detail),
    });
  });

  it('fails an automatic move out of COMMIT_UNKNOWN but accepts the operator audit one', () => {
    const base: Item[] = [
      intentItem('intent:created'),
      {
        version: 2,
        kind: 'transition',
        from_state: 'PREPARING',
        to_state: 'PREPARED',
        at_ms: 2,
        lease_epoch: 1,
        reason: 'fence:prepared',
      },
      {
        version: 3,
        kind: 'transition',
        from_state: 'PREPARED',
        to_state: 'COMMITTING',
        at_ms: 3,
        lease_epoch: 1,
        reason: 'mutation:begin',
      },
      {
        version: 4,
        kind: 'transition',
        from_state: 'COMMITTING',
        to_state: 'COMMIT_UNKNOWN',
        at_ms: 4,
        lease_epoch: 1,
        reason: 'fence:unknown',
        fence_status: 'unknown',
      },
    ];
    const move = (kind: string): JournalSnapshot => ({
      final_state: 'TARGET_COMMITTED',
      version: 5,
      history_legal: true,
      history: [
        ...base,
        {
          version: 5,
          kind,
          from_state: 'COMMIT_UNKNOWN',
          to_state: 'TARGET_COMMITTED',
          at_ms: 5,
          lease_epoch: null,
          reason: 'operator',
          fence_status: 'committed',
        },
      ],
    });
    expect(check(move('transition')).detail).toContain(
      'COMMIT_UNKNOWN moved to TARGET_COMMITTED automatically',
    );
    expect(historyViolations(move('audit'))).toEqual([]);
    expect(
      historyViolations({ final_state: 'COMMIT_UNKNOWN', version: 4, history_legal: true, history: base }),
    ).toEqual([]);
  });

  it('fails an entry that disagrees with the end of its history, and a history not starting at the intent', async () => {
    const legal = await legalSnapshot();
    expect(check({ ...legal, final_state: 'COMMITTING' }).detail).toContain('entry is COMMITTING');
    const headless = edited(legal, (history) => history.slice(1));
    expect(check(headless).detail).toContain('history starts at version 2');
  });

  it('is UNKNOWN when the journal could not be read', () => {
    const result = journalHistoryChecker.check({
      target: null,
      journal: null,
      journalError: 'gone',
      attempts: [],
      expectation: { end: 'complete' },
    });
    expect(result).toMatchObject({ verdict: 'UNKNOWN', detail: 'journal not read: gone' });
  });
});
