import { resolve } from 'node:path';
import { DponeError, ERROR_CODES, invalidInput } from '../../contracts/errors.ts';
import { assertSha256Id } from '../../contracts/identity.ts';
import { assertActor, assertReason, assertReference } from '../../core/recovery-audit.ts';
import type { RecoveryActionName, RecoveryOutcome } from '../../core/recovery-actions.ts';
import { RECOVERY_ACTIONS, RECOVERY_OUTCOMES, isRecoveryActionName } from '../../core/recovery-actions.ts';
import { parseFlags, required } from '../args.ts';
import { MAX_BYTES, readBoundedText } from '../bounded-file.ts';
import type { CliIO } from '../command.ts';

/**
 * Flags of `dpone recovery target-commit inspect|plan|apply`. None takes a secret or row data:
 * the journal URL's password comes from DPONE_JOURNAL_PASSWORD, the target's from the workload's
 * `password_env`, and free text (reason, evidence reference) is checked before it is recorded.
 */

/** Environment variable naming the platform identity that applies recovery actions. */
export const PLATFORM_IDENTITY_ENV = 'DPONE_PLATFORM_IDENTITY';

const COMMON = {
  'operation-id': { type: 'string' },
  journal: { type: 'string' },
  route: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

const APPLY = {
  ...COMMON,
  action: { type: 'string' },
  'expected-version': { type: 'string' },
  reason: { type: 'string' },
  'evidence-ref': { type: 'string' },
  outcome: { type: 'string' },
  'identity-file': { type: 'string' },
} as const;

export interface RecoveryReadFlags {
  readonly operationId: string;
  /** `--journal URL`; when absent, the journal comes from the `--route` workload. */
  readonly journal?: string;
  /** `--route FILE`: a workload file naming the target whose fence is queried (read-only). */
  readonly route?: string;
  readonly json: boolean;
}

export interface RecoveryApplyFlags extends RecoveryReadFlags {
  readonly action: RecoveryActionName;
  readonly expectedVersion: number;
  readonly reason: string;
  readonly evidenceRef?: string;
  /** `--outcome committed|not-committed`: what the evidence says the target holds (resolve-unknown). */
  readonly outcome?: RecoveryOutcome;
  readonly identityFile?: string;
}

function readFlags(values: {
  'operation-id'?: string;
  journal?: string;
  route?: string;
  json?: boolean;
}): RecoveryReadFlags {
  const operationId = assertSha256Id(required(values['operation-id'], '--operation-id'), '--operation-id');
  if (values.journal === undefined && values.route === undefined) {
    throw invalidInput('--journal URL or --route FILE is required to find the journal', {
      field: '--journal',
    });
  }
  return {
    operationId,
    json: values.json ?? false,
    ...(values.journal !== undefined ? { journal: required(values.journal, '--journal') } : {}),
    ...(values.route !== undefined ? { route: required(values.route, '--route') } : {}),
  };
}

const CLEANUP = {
  ...COMMON,
  reason: { type: 'string' },
  'identity-file': { type: 'string' },
} as const;

/** `cleanup`'s flags: the read flags, a reason and the platform identity (as apply's). */
export interface RecoveryCleanupFlags extends RecoveryReadFlags {
  readonly reason: string;
  readonly identityFile?: string;
}

export function parseCleanupFlags(args: readonly string[]): RecoveryCleanupFlags {
  const { values } = parseFlags(args, CLEANUP);
  return {
    ...readFlags(values),
    reason: values.reason === undefined ? 'no reason given' : assertReason(values.reason, '--reason'),
    ...(values['identity-file'] !== undefined ? { identityFile: values['identity-file'] } : {}),
  };
}

export function parseRecoveryReadFlags(args: readonly string[]): RecoveryReadFlags {
  return readFlags(parseFlags(args, COMMON).values);
}

export function parseRecoveryApplyFlags(args: readonly string[]): RecoveryApplyFlags {
  const { values } = parseFlags(args, APPLY);
  const base = readFlags(values);
  const action = required(values.action, '--action');
  if (!isRecoveryActionName(action)) {
    throw invalidInput(`--action must be one of ${RECOVERY_ACTIONS.join(', ')}`, { field: '--action' });
  }
  const versionText = required(values['expected-version'], '--expected-version');
  if (!/^[1-9][0-9]{0,14}$/.test(versionText)) {
    throw invalidInput('--expected-version must be the journal version shown by inspect (an integer >= 1)', {
      field: '--expected-version',
    });
  }
  return {
    ...base,
    action,
    expectedVersion: Number(versionText),
    // Checked here too, so the refusal names the flag before any journal is opened.
    reason: values.reason === undefined ? 'no reason given' : assertReason(values.reason, '--reason'),
    ...(values['evidence-ref'] !== undefined
      ? { evidenceRef: assertReference(values['evidence-ref'], '--evidence-ref') }
      : {}),
    ...(values.outcome !== undefined ? { outcome: outcomeFlag(values.outcome, values['evidence-ref']) } : {}),
    ...(values['identity-file'] !== undefined ? { identityFile: values['identity-file'] } : {}),
  };
}

/** `--outcome` names what the operator's evidence shows; it means nothing without `--evidence-ref`. */
function outcomeFlag(value: string, evidenceRef: string | undefined): RecoveryOutcome {
  if (!(RECOVERY_OUTCOMES as readonly string[]).includes(value))
    throw invalidInput(`--outcome must be one of ${RECOVERY_OUTCOMES.join(', ')}`, { field: '--outcome' });
  if (evidenceRef === undefined)
    throw invalidInput('--outcome states what your evidence shows: give it with --evidence-ref', {
      field: '--outcome',
    });
  return value as RecoveryOutcome;
}

/**
 * The platform identity applying an action: the one non-empty line of `--identity-file`, else
 * DPONE_PLATFORM_IDENTITY. Refused without one. The file must hold that one line and nothing else
 * (not the first line of whatever file is named), and the name must look like a principal
 * (`kind:name`), never like a token. It is attribution, not authorisation (README, runbook).
 */
export async function platformIdentity(
  flags: Pick<RecoveryApplyFlags, 'identityFile'>,
  io: CliIO,
): Promise<string> {
  if (flags.identityFile !== undefined) {
    const text = await readBoundedText(resolve(io.cwd, flags.identityFile), {
      what: 'identity file',
      maxBytes: MAX_BYTES.identity,
      fields: { field: '--identity-file' },
      unreadableCode: ERROR_CODES.UNAUTHORIZED,
    });
    const lines = text
      .split(/\r?\n/)
      .map((candidate) => candidate.trim())
      .filter((candidate) => candidate !== '');
    if (lines.length === 0) {
      throw new DponeError(ERROR_CODES.UNAUTHORIZED, 'the --identity-file holds no platform identity', {
        field: '--identity-file',
      });
    }
    if (lines.length > 1)
      throw invalidInput('the --identity-file must hold exactly one line: the platform identity', {
        field: '--identity-file',
      });
    return assertActor(lines[0]!, '--identity-file');
  }
  const fromEnv = io.env[PLATFORM_IDENTITY_ENV]?.trim();
  if (!fromEnv) {
    throw new DponeError(
      ERROR_CODES.UNAUTHORIZED,
      `recovery apply requires a platform identity: set ${PLATFORM_IDENTITY_ENV} or pass --identity-file FILE`,
      { field: PLATFORM_IDENTITY_ENV },
    );
  }
  return assertActor(fromEnv, PLATFORM_IDENTITY_ENV);
}
