import { ERROR_CODES, EXIT_CODES } from '../../contracts/errors.ts';
import { safeJson } from '../../contracts/safe-text.ts';
import { clockFromEnv } from '../../test-hooks/index.ts';
import { leaseLive } from '../../contracts/lease-clock.ts';
import { assessRecovery } from '../../core/recovery-assessment.ts';
import type { CommandRun } from '../command.ts';
import { parseRecoveryReadFlags } from './recovery-flags.ts';
import type { InspectJSON } from './recovery-output.ts';
import { fenceJSON, renderInspect } from './recovery-output.ts';
import { openLeftovers } from './recovery-leftovers.ts';
import { openRecoverySession, readOperation } from './recovery-session.ts';

/**
 * `dpone recovery target-commit inspect --operation-id sha256:… (--journal URL | --route FILE) [--json]`.
 * Read-only: shows the journal entry and history and, with --route, the target fence's answer and
 * what the two imply together. Exit 0, except 29 (DIVERGED) when the journal and the target fence
 * contradict each other (assessment `inconsistent`: a script must not read "do not act" as fine);
 * coded errors as everywhere else.
 */
export const run: CommandRun = async (args, io) => {
  const flags = parseRecoveryReadFlags(args);
  await using session = await openRecoverySession(flags, io, { readOnly: true });
  const { entry, history } = await readOperation(session, flags.operationId);
  const answer = session.fence ? await session.fence.queryFence(flags.operationId) : null;
  let leftovers: InspectJSON['leftovers'] = null;
  if (session.workload) {
    await using target = await openLeftovers(session.workload, io, true, session.route ?? undefined);
    leftovers = await target.list(flags.operationId);
  }
  const nowMs = clockFromEnv(io.env).nowMs();
  const view: InspectJSON = {
    schema: 'dpone.recovery.inspect/v1',
    operation_id: entry.operation_id,
    journal: session.journalLabel,
    entry: { ...entry, lease_live: leaseLive(entry.lease, nowMs) },
    history,
    fence: fenceJSON(answer),
    leftovers,
    assessment: assessRecovery(entry, history, answer, nowMs, {
      ...(session.fenceLocation ? { fenceLocation: session.fenceLocation } : {}),
      ...(session.workload ? { leaseTtlMs: session.workload.execution.lease_ttl_ms } : {}),
    }),
  };
  io.stdout.write(flags.json ? `${safeJson(view)}\n` : renderInspect(view));
  return view.assessment.kind === 'inconsistent' ? EXIT_CODES[ERROR_CODES.DIVERGED] : 0;
};
