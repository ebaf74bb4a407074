import type { CommitState } from '../../src/contracts/states.ts';
import { isCommitState, isLegalTransition, isOperatorOnlyTransition } from '../../src/contracts/states.ts';
import { OPERATOR_EVIDENCE } from '../../src/core/recovery-assessment.ts';
import { EXPIRE_LEASE_REASON } from '../../src/core/recovery-expire-lease.ts';
import type { CheckRecord, JournalSnapshot } from '../evidence/evidence-types.ts';
import { journalNotRead, record } from './check-record.ts';
import type { CheckContext, Checker, JournalRecords } from './check-types.ts';

const NAME = 'journal-history';
/** Holder names the harness writes journal records under when it stages a state itself. */
export const HARNESS_HOLDER = 'harness:';

type HistoryItem = JournalSnapshot['history'][number];

/** Problems with one record given the one before it (null for the first). */
function recordViolations(item: HistoryItem, previous: HistoryItem | null): string[] {
  const at = `v${item.version}`;
  const problems: string[] = [];
  if (!isCommitState(item.to_state)) return [`${at}: unknown state ${item.to_state}`];
  if (previous === null) {
    if (item.version !== 1) problems.push(`${at}: history starts at version ${item.version}, not 1`);
    if (item.kind !== 'intent' || item.from_state !== null || item.to_state !== 'PREPARING') {
      problems.push(`${at}: history does not start with the intent in PREPARING`);
    }
    return problems;
  }
  if (item.version <= previous.version)
    problems.push(`${at}: version went backward from v${previous.version}`);
  else if (item.version !== previous.version + 1) problems.push(`${at}: skipped from v${previous.version}`);
  const before = previous.to_state;
  if (item.from_state !== before)
    problems.push(`${at}: starts from ${item.from_state}, but the entry was ${before}`);
  // An operator's expire-lease is audited but changes the lease alone, like a lease record.
  const leaseOnly = item.kind === 'audit' && item.reason === EXPIRE_LEASE_REASON;
  if (item.kind === 'lease' || item.kind === 'result' || leaseOnly) {
    if (item.to_state !== before)
      problems.push(`${at}: a ${item.kind} record changed the state to ${item.to_state}`);
    return problems;
  }
  if (item.kind !== 'transition' && item.kind !== 'audit')
    return [...problems, `${at}: unexpected ${item.kind} record`];
  const from = before as CommitState;
  const to = item.to_state;
  if (!isCommitState(from) || !isLegalTransition(from, to))
    problems.push(`${at}: illegal transition ${before} -> ${to}`);
  if (item.kind === 'transition' && from === 'COMMIT_UNKNOWN') {
    problems.push(`${at}: COMMIT_UNKNOWN moved to ${to} automatically (no operator audit)`);
  } else if (item.kind === 'transition' && isCommitState(from) && isOperatorOnlyTransition(from, to)) {
    problems.push(`${at}: operator-only transition ${from} -> ${to} taken automatically`);
  }
  // The proof of commit is the fence's, or (no fence could prove it) an operator's audited evidence.
  const operatorProof = item.kind === 'audit' && item.reason === OPERATOR_EVIDENCE;
  if (to === 'TARGET_COMMITTED' && item.fence_status !== 'committed' && !operatorProof) {
    problems.push(
      `${at}: TARGET_COMMITTED without fence_status committed (had ${item.fence_status ?? 'none'})`,
    );
  }
  return problems;
}

/** Every violation of the journal's rules in a stored history; empty when legal. */
export function historyViolations(journal: JournalSnapshot): string[] {
  const problems: string[] = [];
  let previous: HistoryItem | null = null;
  for (const item of journal.history) {
    problems.push(...recordViolations(item, previous));
    previous = item;
  }
  if (previous !== null) {
    if (journal.final_state !== previous.to_state || journal.version !== previous.version) {
      problems.push(
        `entry is ${journal.final_state ?? 'absent'} v${journal.version ?? '-'} but history ends ${previous.to_state} v${previous.version}`,
      );
    }
  } else if (journal.final_state !== null) {
    problems.push(`entry is ${journal.final_state} but the history is empty`);
  }
  return problems;
}

/**
 * Executor names as the evidence keeps them: `e1`, `e2`, … in order of first appearance in the
 * history (a holder name carries a host name and a process id, which the evidence has no need of),
 * `harness` for the records the harness staged itself.
 */
function holderAliases(): (name: string | null | undefined) => string | null {
  const aliases = new Map<string, string>();
  return (name) => {
    if (name === null || name === undefined) return null;
    if (name.startsWith(HARNESS_HOLDER)) return 'harness';
    if (!aliases.has(name)) aliases.set(name, `e${aliases.size + 1}`);
    return aliases.get(name)!;
  };
}

/** The stored form of the journal (safe fields only), with `history_legal` computed. */
export function journalSnapshot(records: JournalRecords): JournalSnapshot {
  const alias = holderAliases();
  const history = records.history.map((item) => ({
    version: item.version,
    kind: item.kind,
    from_state: item.from_state,
    to_state: item.to_state,
    at_ms: item.at_ms,
    lease_epoch: item.lease_epoch,
    // Who held the lease after this change, and who wrote it (journal-lease-checker.ts).
    lease_holder: alias(item.lease_holder),
    writer: alias(item.evidence.holder),
    reason: item.evidence.reason,
    fence_status: item.evidence.fence_status ?? null,
    ...(item.evidence.holder?.startsWith(HARNESS_HOLDER) ? { staged: true } : {}),
  }));
  const draft: JournalSnapshot = {
    final_state: records.entry?.state ?? null,
    version: records.entry?.version ?? null,
    history_legal: true,
    history,
  };
  return { ...draft, history_legal: historyViolations(draft).length === 0 };
}

/**
 * Every transition legal, versions +1 from 1, never backward, commit only on fence proof — in the
 * cell's journal and, for a fork cell, in the second deployment's journal too.
 */
export const journalHistoryChecker: Checker = {
  name: NAME,
  check(context: CheckContext): CheckRecord {
    const { journal } = context;
    if (journal === null) return record(NAME, 'UNKNOWN', journalNotRead(context));
    const fork = context.loss?.fork_journal;
    const problems = [
      ...historyViolations(journal),
      ...(fork ? historyViolations(fork).map((problem) => `forked journal: ${problem}`) : []),
    ];
    if (problems.length > 0) return record(NAME, 'FAIL', problems.join('; '));
    const forked = fork ? `; forked journal ${fork.history.length} records legal` : '';
    return record(
      NAME,
      'PASS',
      `${journal.history.length} records legal, ending ${journal.final_state ?? 'with no entry'}${forked}`,
    );
  },
};
