import type { CheckRecord, JournalSnapshot } from '../evidence/evidence-types.ts';
import { journalNotRead, record } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';
import { JOURNAL_LEASE } from '../evidence/check-names.ts';

type HistoryItem = JournalSnapshot['history'][number];

/**
 * Problems of one executor transition given the record before it, whose lease (holder, epoch) is
 * the one in force when the transition was written: the writer must be that holder, and the
 * transition must keep that lease (or release it). Operator records (audits), lease records and
 * what the harness staged itself are not executor transitions.
 */
function transitionViolations(item: HistoryItem, previous: HistoryItem): string[] {
  if (item.kind !== 'transition' || item.staged || item.writer === undefined) return [];
  const at = `v${item.version} ${item.from_state ?? '-'} -> ${item.to_state}`;
  const holder = previous.lease_holder ?? null;
  const epoch = previous.lease_epoch;
  if (item.writer === null) return [`${at}: written by no named executor`];
  if (holder === null) return [`${at}: written by ${item.writer} while no executor held the lease`];
  if (item.writer !== holder)
    return [`${at}: written by ${item.writer} while ${holder} held the lease at epoch ${epoch ?? '?'}`];
  const kept = item.lease_holder === holder && item.lease_epoch === epoch;
  const released = (item.lease_holder ?? null) === null && item.lease_epoch === null;
  return kept || released ? [] : [`${at}: the transition changed the lease it was written under`];
}

/** Every executor transition not written by the lease holder of its version and epoch; empty when none. */
export function leaseViolations(journal: JournalSnapshot): string[] {
  const problems: string[] = [];
  for (let index = 1; index < journal.history.length; index++)
    problems.push(...transitionViolations(journal.history[index]!, journal.history[index - 1]!));
  return problems;
}

function recorded(journal: JournalSnapshot): boolean {
  return journal.history.some((item) => item.writer !== undefined);
}

/**
 * Every transition an executor wrote was written by the executor holding the lease at that version
 * and epoch (spec: only one active executor lease may mutate an operation). A paused zombie that
 * advances the journal while another executor holds the lease FAILs here, even when the target's
 * fence kept the data exactly-once. In the cell's journal and, for a fork cell, the second
 * deployment's. Evidence from before writers were recorded cannot say: UNKNOWN.
 */
export const journalLeaseChecker: Checker = {
  name: JOURNAL_LEASE,
  check(context: CheckContext): CheckRecord {
    const { journal } = context;
    if (journal === null) return record(JOURNAL_LEASE, 'UNKNOWN', journalNotRead(context));
    if (journal.history.length > 0 && !recorded(journal))
      return record(JOURNAL_LEASE, 'UNKNOWN', 'the stored history does not say who wrote each record');
    const fork = context.loss?.fork_journal;
    const problems = [
      ...leaseViolations(journal),
      ...(fork ? leaseViolations(fork).map((problem) => `forked journal: ${problem}`) : []),
    ];
    if (problems.length > 0) return record(JOURNAL_LEASE, 'FAIL', problems.join('; '));
    const transitions = journal.history.filter((item) => item.kind === 'transition' && !item.staged).length;
    return record(
      JOURNAL_LEASE,
      'PASS',
      `${transitions} executor transitions, each written by the executor holding the lease at its version and epoch`,
    );
  },
};
