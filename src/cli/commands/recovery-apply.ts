import { safeJson } from '../../contracts/safe-text.ts';
import { applyRecovery } from '../../core/recovery-apply.ts';
import { FileStateSink } from '../../adapters/state/file-state-sink.ts';
import { clockFromEnv, faultPointsFromEnv, requestedRuntimeFlaws } from '../../test-hooks/index.ts';
import { UNSAFE_VARIANTS } from '../unsafe-catalogue.ts';
import type { CommandRun } from '../command.ts';
import { parseRecoveryApplyFlags, platformIdentity } from './recovery-flags.ts';
import type { ApplyJSON } from './recovery-output.ts';
import { renderApply } from './recovery-output.ts';
import { openRecoverySession } from './recovery-session.ts';

/**
 * `dpone recovery target-commit apply --operation-id sha256:… (--journal URL | --route FILE)
 *  --action NAME --expected-version N [--reason TEXT] [--evidence-ref REF] [--identity-file FILE] [--json]`.
 * Needs a platform identity (DPONE_PLATFORM_IDENTITY or --identity-file). Applies the action with
 * compare-and-set on the version the operator saw and writes the audit record into the history.
 */
export const run: CommandRun = async (args, io) => {
  const flags = parseRecoveryApplyFlags(args);
  const actor = await platformIdentity(flags, io);
  const faults = faultPointsFromEnv(io.env);
  await using session = await openRecoverySession(flags, io, { readOnly: false });
  const result = await applyRecovery(
    {
      journal: session.journal,
      faults,
      clock: clockFromEnv(io.env),
      ...(session.fence ? { fence: session.fence } : {}),
      ...(session.workload ? { leaseTtlMs: session.workload.execution.lease_ttl_ms } : {}),
      ...(requestedRuntimeFlaws(io.env, UNSAFE_VARIANTS).recoveryWithoutFence ? { withoutFence: true } : {}),
      // With a workload, complete-state writes its checkpoint where `dpone run` would.
      ...(session.workload?.execution.state_dir
        ? { state: new FileStateSink(session.workload.execution.state_dir) }
        : {}),
    },
    {
      operationId: flags.operationId,
      action: flags.action,
      expectedVersion: flags.expectedVersion,
      actor,
      reason: flags.reason,
      ...(flags.evidenceRef !== undefined ? { evidenceRef: flags.evidenceRef } : {}),
      ...(flags.outcome !== undefined ? { outcome: flags.outcome } : {}),
    },
  );
  const view: ApplyJSON = {
    schema: 'dpone.recovery.apply/v1',
    operation_id: flags.operationId,
    action: result.action,
    before: result.before,
    after: { state: result.after.state, version: result.after.version },
    audit: result.audit,
  };
  io.stdout.write(flags.json ? `${safeJson(view)}\n` : renderApply(view));
  return 0;
};
