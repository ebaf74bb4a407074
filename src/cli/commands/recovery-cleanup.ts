import { DponeError, ERROR_CODES, invalidInput } from '../../contracts/errors.ts';
import { safeJson } from '../../contracts/safe-text.ts';
import { clockFromEnv } from '../../test-hooks/index.ts';
import type { CommandRun } from '../command.ts';
import { parseCleanupFlags, platformIdentity } from './recovery-flags.ts';
import { openLeftovers } from './recovery-leftovers.ts';
import { openRecoverySession } from './recovery-session.ts';

/** States whose operation never began a target mutation (absent: no journal entry at all). */
const NEVER_COMMITTED = new Set(['FAILED_PRE_COMMIT']);

/**
 * `dpone recovery target-commit cleanup --operation-id sha256:… --route FILE [--journal URL]
 *  [--reason TEXT] [--identity-file FILE] [--json]`. Removes what an operation that never committed
 * left in its target (a staging/swap target's staging tables and tombstones, PluginTarget.openLeftovers:
 * they pile up when a refused workload is fixed, because its operation id changes). Only for an operation whose journal entry
 * is FAILED_PRE_COMMIT with no live lease, or absent; needs a platform identity; the target records
 * who removed what and why (e.g. a `cleanup` event in its fence log), and the output says it.
 */
export const run: CommandRun = async (args, io) => {
  const flags = parseCleanupFlags(args);
  const actor = await platformIdentity(flags, io);
  if (flags.route === undefined)
    throw invalidInput('cleanup needs --route FILE: the workload naming the target to clean', {
      field: '--route',
    });
  await using session = await openRecoverySession(flags, io, { readOnly: true });
  const entry = await session.journal.get(flags.operationId);
  const nowMs = clockFromEnv(io.env).nowMs();
  if (
    entry !== null &&
    (!NEVER_COMMITTED.has(entry.state) || (entry.lease && entry.lease.expires_at_ms > nowMs))
  ) {
    throw new DponeError(
      ERROR_CODES.ILLEGAL_TRANSITION,
      `cleanup is only for an operation whose journal entry is FAILED_PRE_COMMIT (no live lease) or absent; this one is ${entry.state}${entry.lease && entry.lease.expires_at_ms > nowMs ? ' with a live lease' : ''}`,
      { operationId: flags.operationId, state: entry.state, journalVersion: entry.version },
    );
  }
  await using leftovers = await openLeftovers(session.workload!, io, false, session.route ?? undefined);
  const removed = await leftovers.cleanup(flags.operationId, { actor, reason: flags.reason });
  const view = {
    schema: 'dpone.recovery.cleanup/v1',
    operation_id: flags.operationId,
    journal_state: entry?.state ?? null,
    removed,
    audit: { actor, reason: flags.reason, at_ms: nowMs },
  };
  io.stdout.write(
    flags.json
      ? `${safeJson(view)}\n`
      : `cleanup     ${flags.operationId} (journal: ${entry?.state ?? 'no entry'})\nremoved     ${removed.length === 0 ? 'nothing (nothing was left behind)' : removed.join(', ')}\naudit       ${actor}: ${flags.reason}\n`,
  );
  return 0;
};
