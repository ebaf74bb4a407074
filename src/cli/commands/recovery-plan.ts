import { safeJson } from '../../contracts/safe-text.ts';
import { clockFromEnv } from '../../test-hooks/index.ts';
import { planRecovery } from '../../core/recovery-planner.ts';
import type { CommandRun } from '../command.ts';
import { parseRecoveryReadFlags } from './recovery-flags.ts';
import type { PlanJSON } from './recovery-output.ts';
import { fenceJSON, renderPlan } from './recovery-output.ts';
import { openRecoverySession, readOperation } from './recovery-session.ts';

/**
 * `dpone recovery target-commit plan --operation-id sha256:… (--journal URL | --route FILE) [--json]`.
 * Read-only and pure: lists every action with its preconditions and effect, marks the legal ones
 * given the fence's answer, and recommends one. It writes nothing, to the journal or the target.
 */
export const run: CommandRun = async (args, io) => {
  const flags = parseRecoveryReadFlags(args);
  await using session = await openRecoverySession(flags, io, { readOnly: true });
  const { entry, history } = await readOperation(session, flags.operationId);
  const answer = session.fence ? await session.fence.queryFence(flags.operationId) : null;
  const plan = planRecovery(entry, history, answer, {
    nowMs: clockFromEnv(io.env).nowMs(),
    ...(session.fenceLocation ? { fenceLocation: session.fenceLocation } : {}),
    ...(session.workload ? { leaseTtlMs: session.workload.execution.lease_ttl_ms } : {}),
  });
  const where = flags.route !== undefined ? `--route ${flags.route}` : `--journal ${session.journalLabel}`;
  const view: PlanJSON = {
    schema: 'dpone.recovery.plan/v1',
    operation_id: entry.operation_id,
    journal: session.journalLabel,
    fence: fenceJSON(answer),
    assessment: plan.assessment,
    actions: plan.actions,
    recommended: plan.recommended,
    next_command: plan.recommended
      ? `dpone recovery target-commit apply --operation-id ${entry.operation_id} ${where} --action ${plan.recommended} --expected-version ${entry.version} --reason '…'`
      : null,
  };
  io.stdout.write(flags.json ? `${safeJson(view)}\n` : renderPlan(view));
  return 0;
};
