import type { CompareAndSetRequest, LeaseRequest } from '../../../ports/journal.ts';
import type { CommitState } from '../../../contracts/states.ts';
import { isLegalTransition, isOperatorOnlyTransition } from '../../../contracts/states.ts';

/**
 * One-round-trip writes for the PostgreSQL journal. Each is ONE statement with data-modifying
 * CTEs, so in autocommit it is atomic: lock the entry at the expected version, update it, append
 * its history row, return the new entry. Legality is decided on the client from the shared state
 * table (`legalFromStates`); the SQL only guards version/state/lease and applies the fields
 * `planTransition` / `planLease` would write. Zero rows means nothing was written; the adapter
 * then reads once and lets the planner name the failure.
 */

const ENTRY = 'dpone_commit_journal';
const HISTORY = 'dpone_commit_journal_history';
const HISTORY_INSERT = `INSERT INTO ${HISTORY} (operation_id, version, kind, from_state, to_state, at_ms, lease_holder, lease_epoch, evidence, audit)`;

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
export const CAS_STATEMENT = {
  text: `WITH cur AS (
  SELECT state FROM ${ENTRY}
  WHERE operation_id = $1::text AND version = $2::bigint AND state = ANY($3::text[])
    AND set_config('synchronous_commit', $11::text, true) IS NOT NULL
  FOR UPDATE
), upd AS (
  UPDATE ${ENTRY} e SET state = $4::text, version = e.version + 1,
    lease_holder = CASE WHEN $5::boolean THEN NULL ELSE e.lease_holder END,
    lease_epoch = CASE WHEN $5::boolean THEN NULL ELSE e.lease_epoch END,
    lease_expires_at_ms = CASE WHEN $5::boolean THEN NULL ELSE e.lease_expires_at_ms END,
    result = COALESCE($6::text, e.result), updated_at_ms = $7::bigint
  FROM cur WHERE e.operation_id = $1::text AND e.version = $2::bigint
  RETURNING e.*, cur.state AS from_state
), hist AS (
  ${HISTORY_INSERT}
  SELECT operation_id, version, $8::text, from_state, state, updated_at_ms, lease_holder, lease_epoch, $9::text, $10::text
  FROM upd
)
SELECT * FROM upd`,
} as const;

/** Parameters of CAS_STATEMENT; `from` is non-empty (legalFromStates). */
export function casValues(
  request: CompareAndSetRequest,
  from: readonly CommitState[],
  durableCommit = 'on',
): unknown[] {
  return [
    request.operationId,
    request.expectedVersion,
    from,
    request.nextState,
    request.releaseLease === true,
    request.result === undefined || request.result === null ? null : JSON.stringify(request.result),
    request.nowMs,
    request.audit ? 'audit' : 'transition',
    JSON.stringify(request.evidence),
    request.audit === undefined ? null : JSON.stringify(request.audit),
    durableCommit,
  ];
}

export const LEASE_STATEMENT = {
  text: `WITH cur AS (
  SELECT state, lease_holder, lease_epoch, last_epoch FROM ${ENTRY}
  WHERE operation_id = $1::text AND version = $2::bigint
    AND (lease_holder IS NULL OR lease_holder = $3::text OR lease_expires_at_ms <= $4::bigint)
    AND set_config('synchronous_commit', $10::text, true) IS NOT NULL
  FOR UPDATE
), nxt AS (
  SELECT state,
    GREATEST(CASE WHEN lease_holder = $3::text THEN lease_epoch ELSE last_epoch + 1 END, $9::bigint) AS epoch,
    CASE WHEN lease_holder = $3::text THEN $6::text WHEN lease_holder IS NULL THEN $7::text
      ELSE $8::text END AS evidence
  FROM cur
), upd AS (
  UPDATE ${ENTRY} e SET lease_holder = $3::text, lease_epoch = n.epoch,
    lease_expires_at_ms = $4::bigint + $5::bigint, last_epoch = GREATEST(e.last_epoch, n.epoch),
    version = e.version + 1, updated_at_ms = $4::bigint
  FROM nxt n WHERE e.operation_id = $1::text AND e.version = $2::bigint
  RETURNING e.*, n.state AS from_state, n.evidence AS lease_evidence
), hist AS (
  ${HISTORY_INSERT}
  SELECT operation_id, version, 'lease', from_state, state, updated_at_ms, lease_holder, lease_epoch,
    lease_evidence, NULL
  FROM upd
)
SELECT * FROM upd`,
} as const;

/** Parameters of LEASE_STATEMENT; the evidence texts are exactly what planLease records. */
export function leaseValues(request: LeaseRequest, durableCommit = 'on'): unknown[] {
  const evidence = (reason: string) => JSON.stringify({ reason, holder: request.holder });
  return [
    request.operationId,
    request.expectedVersion,
    request.holder,
    request.nowMs,
    request.ttlMs,
    evidence('lease:renewed'),
    evidence('lease:acquired'),
    evidence('lease:takeover'),
    request.minEpoch ?? 0,
    durableCommit,
  ];
}
