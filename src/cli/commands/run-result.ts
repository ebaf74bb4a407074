import type { ErrorCode } from '../../contracts/errors.ts';
import { DponeError, ERROR_CODES, RETRY_SAFE_CODES, isDponeError } from '../../contracts/errors.ts';
import type {
  DeploymentPolicyDecision,
  JournalDescription,
  ProtectionMode,
} from '../../core/deployment-policy.ts';
import type { ExecutionOutcome } from '../../core/executor.ts';
import type { DeploymentRecord } from '../../core/rollout.ts';

/** Version of the run output and XCom (schemas/run.v1.json). Fields may be added, never removed. */
export const RUN_SCHEMA = 'dpone.run/v1';

/** What `dpone run --json` prints on success and what its XCom holds. Safe fields only. */
export interface RunResult {
  readonly schema: typeof RUN_SCHEMA;
  readonly operation_id: string;
  readonly intent_digest: string;
  readonly status: ExecutionOutcome['status'];
  readonly state: string;
  readonly version: number;
  readonly rows_written: number;
  readonly fence_epoch: number;
  /** Whether this attempt itself mutated the target (false when it only completed or returned). */
  readonly mutated: boolean;
  /**
   * `enforced` only when the deployment's trust policy accepts a signed record binding the code
   * running now (src/core/deployment-policy.ts); `legacy` claims no duplicate-write protection.
   */
  readonly protection: ProtectionMode;
  readonly protection_reason: string;
  /** Where the journal is (kind, safe location) and whether the policy counts it durable. */
  readonly journal: JournalDescription;
  /** The rollout mode and the deployment policy (file, digest) that governed the run. */
  readonly deployment?: DeploymentRecord;
}

/** The XCom of a failed run: the coded error and whether Airflow may simply retry. */
export interface RunFailure {
  readonly schema: typeof RUN_SCHEMA;
  readonly operation_id: string;
  readonly intent_digest: string;
  readonly status: 'failed';
  readonly code: ErrorCode;
  /** True only for codes after which no target mutation can have begun (RETRY_SAFE_CODES). */
  readonly retryable: boolean;
  readonly error: ReturnType<DponeError['toJSON']>;
}

export function runResult(
  outcome: ExecutionOutcome,
  intentDigest: string,
  policy: DeploymentPolicyDecision,
  journal: JournalDescription,
): RunResult {
  return {
    schema: RUN_SCHEMA,
    operation_id: outcome.operationId,
    intent_digest: intentDigest,
    status: outcome.status,
    state: outcome.state,
    version: outcome.version,
    rows_written: outcome.rowsWritten,
    fence_epoch: outcome.fenceEpoch,
    mutated: outcome.mutated,
    protection: policy.mode,
    protection_reason: policy.reason,
    journal,
  };
}

export function runFailure(operationId: string, intentDigest: string, error: unknown): RunFailure {
  const coded = isDponeError(error)
    ? (error as DponeError)
    : new DponeError(
        ERROR_CODES.INTERNAL,
        'internal error (details withheld: they may hold sensitive values)',
      );
  return {
    schema: RUN_SCHEMA,
    operation_id: operationId,
    intent_digest: intentDigest,
    status: 'failed',
    code: coded.code,
    retryable: RETRY_SAFE_CODES.has(coded.code),
    error: coded.toJSON(),
  };
}

/** The human form: one `key: value` line per field (`journal.kind: <engine>` for nested ones). */
export function plainResult({ schema: _version, ...result }: { readonly schema: string }): string {
  const lines = Object.entries(result).flatMap(([key, value]) =>
    typeof value === 'object' && value !== null
      ? Object.entries(value).map(([inner, v]) => `${key}.${inner}: ${String(v)}`)
      : [`${key}: ${String(value)}`],
  );
  return `${lines.join('\n')}\n`;
}
