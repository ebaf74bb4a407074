import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ErrorCode } from '../src/contracts/errors.ts';
import { DponeError, isDponeError } from '../src/contracts/errors.ts';
import type { AuditRecord, CommitIntentMetadata, CommitJournalEntry } from '../src/contracts/journal.ts';
import type { CommitState } from '../src/contracts/states.ts';
import type { CompareAndSetRequest, TargetCommitJournalPort } from '../src/ports/journal.ts';

/** One journal handed to a conformance test; disposing it releases whatever the factory made. */
export interface JournalUnderTest extends AsyncDisposable {
  readonly journal: TargetCommitJournalPort;
  /**
   * A URL another OS process can open this same journal with (through the CLI's journal opener),
   * or null when the journal lives inside one process (memory): the process race is then skipped.
   */
  readonly url: string | null;
}

/** Makes a journal to test. Server adapters may share one database: tests use unique ids. */
export type JournalFactory = () => Promise<JournalUnderTest>;

const RUN_SALT = randomBytes(8).toString('hex');

/** A fresh operation id per test label, unique per run so shared server journals never collide. */
export function opId(label: string): string {
  return `sha256:${createHash('sha256').update(`${RUN_SALT}\u0000${label}`).digest('hex')}`;
}

export const METADATA: CommitIntentMetadata = {
  workload_id: 'conformance',
  target_identity: 'memory:conformance.target',
};

export const DIGEST = `sha256:${'ab'.repeat(32)}`;

export const AUDIT: AuditRecord = {
  actor: 'operator@example',
  action: 'mark-committed',
  reason: 'conformance: fence proved commit',
  at_ms: 5_000,
  reference: 'audit-ref-1',
};

/** Legal paths from PREPARING to each state, used to reach a state before testing from it. */
export const PATH_TO: Readonly<Record<CommitState, readonly CommitState[]>> = {
  PREPARING: [],
  PREPARED: ['PREPARED'],
  COMMITTING: ['PREPARED', 'COMMITTING'],
  COMMIT_UNKNOWN: ['PREPARED', 'COMMITTING', 'COMMIT_UNKNOWN'],
  TARGET_COMMITTED: ['PREPARED', 'COMMITTING', 'TARGET_COMMITTED'],
  COMMITTED_INCOMPLETE: ['PREPARED', 'COMMITTING', 'TARGET_COMMITTED', 'COMMITTED_INCOMPLETE'],
  COMPLETE: ['PREPARED', 'COMMITTING', 'TARGET_COMMITTED', 'COMPLETE'],
  FAILED_PRE_COMMIT: ['FAILED_PRE_COMMIT'],
};

export async function create(journal: TargetCommitJournalPort, id: string, nowMs = 1_000) {
  return (await journal.createIntent({ operationId: id, intentDigest: DIGEST, metadata: METADATA, nowMs }))
    .entry;
}

/** The CAS of `operationId` at `expectedVersion` from state `from` to `next`, its evidence `reason`. */
export function casRequest(
  operationId: string,
  expectedVersion: number,
  from: CommitState,
  next: CommitState,
  nowMs: number,
  reason = `conformance:${from}->${next}`,
): CompareAndSetRequest {
  return {
    operationId,
    expectedVersion,
    expectedStates: new Set([from]),
    nextState: next,
    evidence: { reason },
    nowMs,
  };
}

/** One legal step; writes an audit when the table requires one. */
export async function step(
  journal: TargetCommitJournalPort,
  entry: CommitJournalEntry,
  next: CommitState,
  audit?: AuditRecord,
): Promise<CommitJournalEntry> {
  return journal.compareAndSet({
    ...casRequest(entry.operation_id, entry.version, entry.state, next, entry.updated_at_ms + 1),
    ...(audit ? { audit } : {}),
  });
}

/** `holder` asks for a lease of `ttlMs` on `entry` at the version it read, at `nowMs`. */
export function leaseOn(
  journal: TargetCommitJournalPort,
  entry: CommitJournalEntry,
  holder: string,
  ttlMs: number,
  nowMs: number,
): Promise<CommitJournalEntry> {
  return journal.acquireLease({
    operationId: entry.operation_id,
    expectedVersion: entry.version,
    holder,
    ttlMs,
    nowMs,
  });
}

/** Creates an entry and walks it to `state` along PATH_TO. */
export async function reach(
  journal: TargetCommitJournalPort,
  id: string,
  state: CommitState,
): Promise<CommitJournalEntry> {
  let entry = await create(journal, id);
  for (const next of PATH_TO[state]) entry = await step(journal, entry, next);
  return entry;
}

/** Awaits a rejection and asserts its DponeError code. */
export async function rejectsWith(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected rejection with ${code}`).toBeDefined();
  expect(isDponeError(error) ? error.code : error).toBe(code);
}

/**
 * Awaits a rejection that must be a DponeError and returns it, for a test that reads its code,
 * message or fields (a journal that is refused, unreachable or damaged).
 */
export async function dponeRejection(promise: Promise<unknown>): Promise<DponeError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DponeError);
  return error as DponeError;
}

/** Asserts the entry and its history did not change. */
export async function unchanged(journal: TargetCommitJournalPort, before: CommitJournalEntry) {
  expect(await journal.get(before.operation_id)).toEqual(before);
  expect((await journal.history(before.operation_id)).length).toBe(before.version);
}

/** Awaits a refusal with `code` and asserts it left the entry and its history as `before`. */
export async function refusedUnchanged(
  journal: TargetCommitJournalPort,
  change: Promise<unknown>,
  code: ErrorCode,
  before: CommitJournalEntry,
): Promise<void> {
  await rejectsWith(change, code);
  await unchanged(journal, before);
}
