import { DponeError, ERROR_CODES, invalidInput } from '../contracts/errors.ts';
import type { AuditRecord, CommitJournalEntry } from '../contracts/journal.ts';
import { firstUnsafeCharacter } from '../contracts/safe-text.ts';
import type { RecoveryActionName } from './recovery-actions.ts';
import { safe } from './fence-decision.ts';

/**
 * The audit record of a recovery action and the checks on what an operator may type into it. The
 * journal must never hold secrets or row data, so free text is short, single-line, and refused when
 * it looks like a credential or a connection string.
 */

/**
 * `kind:name`, e.g. `platform:alice@example.com`, `k8s:system:serviceaccount:ops:recovery`: a
 * lower-case kind, then `:`-separated parts that each start with a letter or digit. A passwd line,
 * a path or a bare word is not one.
 */
const ACTOR_PATTERN = /^[a-z][a-z0-9-]{0,31}(:[A-Za-z0-9][A-Za-z0-9._@+-]*)+$/;
const MAX_ACTOR = 128;
/** Credentials that look like names: tokens with known prefixes, JWTs, long random-looking runs. */
const TOKEN_LOOKING = [
  /\beyJ[A-Za-z0-9_-]{8,}\./, // a JWT's header
  /\b(gh[pousr]_|github_pat_|glpat-|xox[abprs]-|sk-|AKIA|ASIA)[A-Za-z0-9_-]{12,}/,
  /[0-9a-f]{32,}/i, // a hex secret or hash
  /(?=[A-Za-z0-9+/=_]*[0-9])(?=[A-Za-z0-9+/=_]*[a-z])(?=[A-Za-z0-9+/=_]*[A-Z])[A-Za-z0-9+/=_]{24,}/,
];
const REFERENCE_PATTERN = /^[A-Za-z0-9._:#/+-]{1,128}$/;
const MAX_REASON = 200;
const SECRET_LOOKING = [
  /:\/\/[^/\s]*:[^/\s]*@/, // URL with user:password@
  /\b(pass(word)?|pwd|secret|token|api[_-]?key|credential)s?\s*[:=]/i,
  /-----BEGIN /,
];

/**
 * A platform identity: a principal name such as `platform:alice@example.com`, never a secret. It is
 * attribution (who the operator says they are), not authorisation: see the README's runbook.
 */
export function assertActor(value: string, field: string): string {
  if (value.length > MAX_ACTOR || !ACTOR_PATTERN.test(value)) {
    throw invalidInput(
      `${field} must be a principal name kind:name (e.g. platform:alice@example.com) of at most ${MAX_ACTOR} characters`,
      { field },
    );
  }
  if (TOKEN_LOOKING.some((pattern) => pattern.test(value)) || SECRET_LOOKING.some((p) => p.test(value))) {
    throw invalidInput(
      `${field} looks like a token or a secret, not a principal name; recovery records never hold secrets`,
      {
        field,
      },
    );
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
  if (value.length > MAX_REASON || firstUnsafeCharacter(value) !== null) {
    throw invalidInput(
      `${field} must be one line of at most ${MAX_REASON} printable characters (no control or bidirectional-override characters)`,
      { field },
    );
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

/** A recovery write that lost to a concurrent change (or a stale version): nothing was applied. */
export function recoveryConflict(entry: CommitJournalEntry, message: string, cause?: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.RECOVERY_CONFLICT,
    message,
    safe(entry),
    cause === undefined ? undefined : { cause },
  );
}
