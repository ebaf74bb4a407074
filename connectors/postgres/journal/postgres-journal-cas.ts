import type {
  CompareAndSetChainRequest,
  CompareAndSetRequest,
  ExpireLeaseRequest,
  LeaseRequest,
} from '../../../src/ports/journal.ts';
import type { LeaseClock } from '../../../src/contracts/lease-clock.ts';
import { CLOCK_FAULT_TAKEOVER, MAX_LEASE_TTL_MS } from '../../../src/contracts/lease-clock.ts';
import type { CommitState } from '../../../src/contracts/states.ts';
import { isLegalTransition, isOperatorOnlyTransition } from '../../../src/contracts/states.ts';
import { CHECKSUM_COLUMN, SEAL, entryIntact } from './postgres-journal-schema.ts';

/**
 * One-round-trip writes for the PostgreSQL journal. Each is ONE statement with data-modifying
 * CTEs, so in autocommit it is atomic: lock the entry at the expected version, update it, append
 * its history row, return the new entry. Legality is decided on the client from the shared state
 * table (`legalFromStates`); the SQL only guards version/state/lease and applies the fields
 * `planTransition` / `planLease` would write. Zero rows means nothing was written; the adapter
 * then reads once and lets the planner name the failure.
 *
 * Time: with the `server` lease clock (the default) `now` is the server's `clock_timestamp()`,
 * read once per statement, for the expiry written and for the comparison alike, so no worker's
 * clock decides a lease. The `caller` clock binds the request's `nowMs` instead: what the journal
 * did before issue 30, kept for the journal conformance suite's fixed instants and for the
 * harness's unsafe variant that trusts the holder's clock.
 */

const ENTRY = 'dpone_commit_journal';
const HISTORY = 'dpone_commit_journal_history';
const HISTORY_INSERT = `INSERT INTO ${HISTORY} (operation_id, version, kind, from_state, to_state, at_ms, lease_holder, lease_epoch, evidence, audit, ${CHECKSUM_COLUMN})`;
/** Every write marks the row for its checksum (postgres-journal-schema.ts: the trigger computes it). */
const SEALED = `${CHECKSUM_COLUMN} = ${SEAL}`;

/** The server's wall clock in Unix milliseconds, as the journal stores instants. */
export const SERVER_NOW_MS = 'floor(extract(epoch from clock_timestamp()) * 1000)::bigint';

/** `now` as one CTE: the server's clock, or the caller's bound as parameter `$n`. */
function clockCte(clock: LeaseClock, param: number): string {
  return `clk AS (SELECT ${clock === 'server' ? SERVER_NOW_MS : `$${param}::bigint`} AS now_ms)`;
}

/** Of the expected states, those from which `nextState` is legal for this request (as planTransition judges). */
export function legalFromStates(
  request: Pick<CompareAndSetRequest, 'expectedStates' | 'nextState' | 'audit'>,
): CommitState[] {
  return [...request.expectedStates].filter(
    (from) =>
      isLegalTransition(from, request.nextState) &&
      !(isOperatorOnlyTransition(from, request.nextState) && request.audit === undefined),
  );
}

/**
 * Unnamed statements only: a named prepared statement lives on one server connection, which a
 * transaction-mode pooler hands to another client after each statement (42P05 / 26000). Each
 * write also sets synchronous_commit locally (set_config(…, true), evaluated on the entry's row
 * before it is written), so an acknowledged transition is durable whatever the server's default.
 */
export interface PgStatement {
  readonly text: string;
}

/** Sets synchronous_commit for this statement's transaction from parameter `$n`. */
function durable(param: number): string {
  return `set_config('synchronous_commit', $${param}::text, true) IS NOT NULL`;
}

/**
 * Parameter numbers: the durable-commit setting follows the request's own, and the caller's
 * `now` is always the last one, absent with the server clock.
 */
export function casStatement(clock: LeaseClock): PgStatement {
  return {
    text: `WITH ${clockCte(clock, 11)}, cur AS (
  SELECT state FROM ${ENTRY} AS entry
  WHERE operation_id = $1::text AND version = $2::bigint AND state = ANY($3::text[])
    AND ${entryIntact('entry')} AND ${durable(10)}
  FOR UPDATE
), upd AS (
  UPDATE ${ENTRY} e SET state = $4::text, version = e.version + 1,
    lease_holder = CASE WHEN $5::boolean THEN NULL ELSE e.lease_holder END,
    lease_epoch = CASE WHEN $5::boolean THEN NULL ELSE e.lease_epoch END,
    lease_expires_at_ms = CASE WHEN $5::boolean THEN NULL ELSE e.lease_expires_at_ms END,
    result = COALESCE($6::text, e.result), updated_at_ms = clk.now_ms, ${SEALED}
  FROM cur, clk WHERE e.operation_id = $1::text AND e.version = $2::bigint
  RETURNING e.*, cur.state AS from_state
), hist AS (
  ${HISTORY_INSERT}
  SELECT operation_id, version, $7::text, from_state, state, updated_at_ms, lease_holder, lease_epoch, $8::text, $9::text,
    ${SEAL}
  FROM upd
)
SELECT * FROM upd`,
  };
}

/** Parameters of casStatement; `from` is non-empty (legalFromStates). */
export function casValues(
  request: CompareAndSetRequest,
  from: readonly CommitState[],
  clock: LeaseClock,
  durableCommit = 'on',
): unknown[] {
  return [
    request.operationId,
    request.expectedVersion,
    from,
    request.nextState,
    request.releaseLease === true,
    request.result === undefined || request.result === null ? null : JSON.stringify(request.result),
    request.audit ? 'audit' : 'transition',
    ...recordedLast(request, clock, durableCommit),
  ];
}

/**
 * What a transition or a lease's end binds last: its evidence and audit (JSON; no audit: NULL),
 * the commit level it demands and, under the caller's clock, the caller's now.
 */
function recordedLast(
  request: CompareAndSetRequest | ExpireLeaseRequest,
  clock: LeaseClock,
  durableCommit: string,
): unknown[] {
  return [
    JSON.stringify(request.evidence),
    request.audit === undefined ? null : JSON.stringify(request.audit),
    durableCommit,
    ...(clock === 'caller' ? [request.nowMs] : []),
  ];
}

/**
 * A chain of compare-and-sets as ONE statement (one round trip, one commit): the entry is locked
 * at the expected version in a state the first transition may leave, moved to the last state with
 * the version raised by the number of transitions, and one history row per transition is appended
 * (version expected + k, from the state the transition before it left). Whether each later
 * transition is legal from the one before depends on the request alone, so the client decides it
 * before sending (chainFollows); the server guards what only it knows: version, state, row intact.
 */
export function casChainStatement(clock: LeaseClock): PgStatement {
  return {
    text: `WITH ${clockCte(clock, 9)}, cur AS (
  SELECT state, lease_holder, lease_epoch FROM ${ENTRY} AS entry
  WHERE operation_id = $1::text AND version = $2::bigint AND state = ANY($3::text[])
    AND ${entryIntact('entry')} AND ${durable(8)}
  FOR UPDATE
), upd AS (
  UPDATE ${ENTRY} e SET state = $4::text, version = e.version + jsonb_array_length($7::jsonb),
    lease_holder = CASE WHEN $5::boolean THEN NULL ELSE e.lease_holder END,
    lease_epoch = CASE WHEN $5::boolean THEN NULL ELSE e.lease_epoch END,
    lease_expires_at_ms = CASE WHEN $5::boolean THEN NULL ELSE e.lease_expires_at_ms END,
    result = COALESCE($6::text, e.result), updated_at_ms = clk.now_ms, ${SEALED}
  FROM cur, clk WHERE e.operation_id = $1::text AND e.version = $2::bigint
  RETURNING e.*, cur.state AS from_state, cur.lease_holder AS held_by, cur.lease_epoch AS held_epoch
), hist AS (
  ${HISTORY_INSERT}
  SELECT upd.operation_id, $2::bigint + s.k, s.t->>'kind', COALESCE(s.t->>'from', upd.from_state), s.t->>'to',
    upd.updated_at_ms, CASE WHEN (s.t->>'leased')::boolean THEN upd.held_by END,
    CASE WHEN (s.t->>'leased')::boolean THEN upd.held_epoch END, s.t->>'evidence', s.t->>'audit', ${SEAL}
  FROM upd, jsonb_array_elements($7::jsonb) WITH ORDINALITY AS s(t, k)
)
SELECT * FROM upd`,
  };
}

/**
 * Whether every transition after the first is legal from the state the one before it leaves (in
 * its expected states, in the table, audited where the table asks): planTransitions' judgement of
 * the later steps, which needs nothing from the server.
 */
export function chainFollows(request: CompareAndSetChainRequest): boolean {
  return request.transitions.every((transition, index) => {
    if (index === 0) return true;
    const from = request.transitions[index - 1]!.nextState;
    return (
      legalFromStates({ ...transition, expectedStates: new Set([from]) }).length === 1 &&
      transition.expectedStates.has(from)
    );
  });
}

/** Parameters of casChainStatement; `from` is the first transition's legalFromStates (non-empty). */
export function casChainValues(
  request: CompareAndSetChainRequest,
  from: readonly CommitState[],
  clock: LeaseClock,
  durableCommit = 'on',
): unknown[] {
  const transitions = request.transitions;
  let leased = true;
  const steps = transitions.map((transition, index) => {
    leased &&= transition.releaseLease !== true;
    return {
      kind: transition.audit ? 'audit' : 'transition',
      from: index === 0 ? null : transitions[index - 1]!.nextState,
      to: transition.nextState,
      evidence: JSON.stringify(transition.evidence),
      audit: transition.audit === undefined ? null : JSON.stringify(transition.audit),
      leased,
    };
  });
  const result = [...transitions].reverse().find((t) => t.result !== undefined && t.result !== null)?.result;
  return [
    request.operationId,
    request.expectedVersion,
    from,
    transitions[transitions.length - 1]!.nextState,
    !leased,
    result === undefined ? null : JSON.stringify(result),
    JSON.stringify(steps),
    durableCommit,
    ...(clock === 'caller' ? [request.nowMs] : []),
  ];
}

/**
 * The lease: allowed when none is held, the holder renews, or the lease expired by `now` — or
 * carries an expiry further ahead of `now` than the largest TTL (a clock fault, lease-clock.ts),
 * recorded as `lease:takeover-clock-fault` with the ended lease's holder, epoch and expiry.
 */
export function leaseStatement(clock: LeaseClock): PgStatement {
  const fault = `(lease_holder <> $3::text AND lease_expires_at_ms > clk.now_ms + ${MAX_LEASE_TTL_MS})`;
  return {
    text: `WITH ${clockCte(clock, 8)}, cur AS (
  SELECT state, lease_holder, lease_epoch, last_epoch, lease_expires_at_ms, ${fault} AS clock_fault
  FROM ${ENTRY} AS entry, clk
  WHERE operation_id = $1::text AND version = $2::bigint
    AND (lease_holder IS NULL OR lease_holder = $3::text OR lease_expires_at_ms <= clk.now_ms OR ${fault})
    AND ${entryIntact('entry')} AND ${durable(6)}
  FOR UPDATE OF entry
), nxt AS (
  SELECT state,
    GREATEST(CASE WHEN lease_holder = $3::text THEN lease_epoch ELSE last_epoch + 1 END, $5::bigint) AS epoch,
    CASE WHEN $7::text IS NULL THEN b.ev::text
      ELSE (b.ev::jsonb || jsonb_build_object('deployment_policy_digest', $7::text))::text END AS evidence,
    CASE WHEN clock_fault THEN lease_holder END AS faulted_holder,
    CASE WHEN clock_fault THEN lease_epoch END AS faulted_epoch,
    CASE WHEN clock_fault THEN lease_expires_at_ms END AS faulted_expires_at_ms
  FROM cur, LATERAL (SELECT
    CASE WHEN lease_holder = $3::text THEN json_build_object('reason', 'lease:renewed', 'holder', $3::text)
      WHEN lease_holder IS NULL THEN json_build_object('reason', 'lease:acquired', 'holder', $3::text)
      WHEN clock_fault THEN json_build_object('reason', '${CLOCK_FAULT_TAKEOVER}', 'holder', $3::text,
        'previous_holder', lease_holder, 'previous_epoch', lease_epoch,
        'previous_expires_at_ms', lease_expires_at_ms)
      ELSE json_build_object('reason', 'lease:takeover', 'holder', $3::text) END AS ev) AS b
), upd AS (
  UPDATE ${ENTRY} e SET lease_holder = $3::text, lease_epoch = n.epoch,
    lease_expires_at_ms = clk.now_ms + $4::bigint, last_epoch = GREATEST(e.last_epoch, n.epoch),
    version = e.version + 1, updated_at_ms = clk.now_ms, ${SEALED}
  FROM nxt n, clk WHERE e.operation_id = $1::text AND e.version = $2::bigint
  RETURNING e.*, n.state AS from_state, n.evidence AS lease_evidence, n.faulted_holder,
    n.faulted_epoch, n.faulted_expires_at_ms, clk.now_ms AS journal_now_ms
), hist AS (
  ${HISTORY_INSERT}
  SELECT operation_id, version, 'lease', from_state, state, updated_at_ms, lease_holder, lease_epoch,
    lease_evidence, NULL, ${SEAL}
  FROM upd
)
SELECT * FROM upd`,
  };
}

/** Parameters of leaseStatement. */
export function leaseValues(request: LeaseRequest, clock: LeaseClock, durableCommit = 'on'): unknown[] {
  return [
    request.operationId,
    request.expectedVersion,
    request.holder,
    request.ttlMs,
    request.minEpoch ?? 0,
    durableCommit,
    request.policyDigest ?? null,
    ...(clock === 'caller' ? [request.nowMs] : []),
  ];
}

/** Ends the lease the expected version holds; the state stays (planLeaseExpiry). */
export function expireStatement(clock: LeaseClock): PgStatement {
  return {
    text: `WITH ${clockCte(clock, 6)}, cur AS (
  SELECT state, lease_holder, lease_epoch, lease_expires_at_ms FROM ${ENTRY} AS entry
  WHERE operation_id = $1::text AND version = $2::bigint AND lease_holder IS NOT NULL
    AND ${entryIntact('entry')} AND ${durable(5)}
  FOR UPDATE
), upd AS (
  UPDATE ${ENTRY} e SET lease_holder = NULL, lease_epoch = NULL, lease_expires_at_ms = NULL,
    version = e.version + 1, updated_at_ms = clk.now_ms, ${SEALED}
  FROM cur, clk WHERE e.operation_id = $1::text AND e.version = $2::bigint
  RETURNING e.*, cur.state AS from_state,
    ($3::jsonb || jsonb_build_object('previous_holder', cur.lease_holder, 'previous_epoch', cur.lease_epoch,
      'previous_expires_at_ms', cur.lease_expires_at_ms))::text AS lease_evidence
), hist AS (
  ${HISTORY_INSERT}
  SELECT operation_id, version, CASE WHEN $4::text IS NULL THEN 'lease' ELSE 'audit' END, from_state, state,
    updated_at_ms, NULL, NULL, lease_evidence, $4::text, ${SEAL}
  FROM upd
)
SELECT * FROM upd`,
  };
}

/** Parameters of expireStatement. */
export function expireValues(
  request: ExpireLeaseRequest,
  clock: LeaseClock,
  durableCommit = 'on',
): unknown[] {
  return [request.operationId, request.expectedVersion, ...recordedLast(request, clock, durableCommit)];
}

/** One read of the entry with the journal's `now`, so a refused lease is named by the clock that refused it. */
export function readWithClock(clock: LeaseClock): PgStatement {
  return {
    text: `SELECT e.*, ${clock === 'server' ? SERVER_NOW_MS : '$2::bigint'} AS journal_now_ms, ${entryIntact('e')} AS row_intact FROM ${ENTRY} e WHERE operation_id = $1::text`,
  };
}
