import { invalidInput } from '../contracts/errors.ts';
import type { AuditRecord } from '../contracts/journal.ts';
import type { RecoveryActionName } from './recovery-planner.ts';

/**
 * The audit record of a recovery action and the checks on what an operator may type into it. The
 * journal must never hold secrets or row data, so free text is short, single-line, and refused when
 * it looks like a credential or a connection string.
 */

const ACTOR_PATTERN = /^[A-Za-z0-9._@:+/=-]{1,128}$/;
const REFERENCE_PATTERN = /^[A-Za-z0-9._:#/+-]{1,128}$/;
const MAX_REASON = 200;
const SECRET_LOOKING = [
  /:\/\/[^/\s]*:[^/\s]*@/, // URL with user:password@
  /\b(pass(word)?|pwd|secret|token|api[_-]?key|credential)s?\s*[:=]/i,
  /-----BEGIN /,
];

/** A platform identity: a principal name such as `platform:alice@example.com`, never a secret. */
export function assertActor(value: string, field: string): string {
  if (!ACTOR_PATTERN.test(value)) {
    throw invalidInput(`${field} must be a principal name of 1-128 characters [A-Za-z0-9._@:+/=-]`, {
      field,
    });
  }
  return value;
}

/** An evidence reference: a ticket or report id, not a URL with credentials and not free text. */
export function assertReference(value: string, field: string): string {
  if (!REFERENCE_PATTERN.test(value) || SECRET_LOOKING.some((pattern) => pattern.test(value))) {
    throw invalidInput(`${field} must be a reference id of 1-128 characters [A-Za-z0-9._:#/+-]`, { field });
  }
  return value;
}

/** The operator's reason: one short line; anything that looks like a secret is refused. */
export function assertReason(value: string, field: string): string {
  // eslint-disable-next-line no-control-regex
  if (value.length > MAX_REASON || /[\u0000-\u001f\u007f]/.test(value)) {
    throw invalidInput(`${field} must be one line of at most ${MAX_REASON} characters`, { field });
  }
  if (SECRET_LOOKING.some((pattern) => pattern.test(value))) {
    throw invalidInput(`${field} looks like it holds a credential; recovery records never hold secrets`, {
      field,
    });
  }
  return value;
}

/** The reference an audit record carries: the operator's evidence, or one derived from the change. */
export function auditReference(
  operationId: string,
  nextVersion: number,
  evidenceRef: string | undefined,
): string {
  return (
    evidenceRef ??
    `dpone-recovery:${operationId.slice('sha256:'.length, 'sha256:'.length + 16)}:v${nextVersion}`
  );
}

export function auditRecord(input: {
  readonly actor: string;
  readonly action: RecoveryActionName;
  readonly reason: string;
  readonly atMs: number;
  readonly reference: string;
}): AuditRecord {
  return {
    actor: input.actor,
    action: input.action,
    reason: input.reason,
    at_ms: input.atMs,
    reference: input.reference,
  };
}
