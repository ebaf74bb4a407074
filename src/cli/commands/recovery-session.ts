import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DponeError, ERROR_CODES, invalidInput } from '../../contracts/errors.ts';
import type { Workload } from '../../contracts/workload.ts';
import { redactUrl } from '../../contracts/redact-url.ts';
import type { TargetConnector } from '../../ports/connector.ts';
import type { TargetCommitJournalPort } from '../../ports/journal.ts';
import type { CliIO } from '../command.ts';
import { journalFilePath, journalWarning, openJournal } from '../journal-url.ts';
import { defaultJournalUrl } from '../engine-roles.ts';
import { checkRequiredSecrets } from '../required-secrets.ts';
import type { ResolvedRoute } from '../route-connectors.ts';
import { NO_FENCE_LOCATION, resolveRoute } from '../route-connectors.ts';
import { readWorkloadFile } from '../workload-file.ts';
import type { FenceAccess } from './recovery-fence.ts';
import { openFenceAccess, openFenceReader } from './recovery-fence.ts';
import type { RecoveryReadFlags } from './recovery-flags.ts';

/** What a recovery command works on: the journal, and the target fence when a route was given. */
export interface RecoverySession extends AsyncDisposable {
  readonly journal: TargetCommitJournalPort;
  /** The journal URL with any password redacted, for output. */
  readonly journalLabel: string;
  readonly workload: Workload | null;
  /** The workload's route, resolved once (null without `--route`, or for a target written without a fence). */
  readonly route: ResolvedRoute | null;
  /** Fence access (read-only for inspect and plan; apply may raise its epoch), or null without `--route`. */
  readonly fence:
    (Pick<TargetConnector, 'queryFence'> & Partial<Pick<TargetConnector, 'prepareFence'>>) | null;
  /** Where the workload's fence lives now (with `--route`), to compare with what the journal recorded. */
  readonly fenceLocation: string | null;
}

/** The journal a workload uses when `--journal` is not given (as `dpone run` does). */
export function workloadJournalUrl(workload: Workload): string {
  if (workload.journal !== undefined) return workload.journal;
  return defaultJournalUrl(workload.execution.state_dir ?? '.');
}

/**
 * Opens the journal and, with `--route`, a read-only reader of the target fence. A file journal
 * must exist already: inspecting a mistyped path must not create an empty journal. `readOnly`
 * (inspect, plan) opens the journal for reading only: nothing is created, not a byte changes, and
 * a copy on read-only media opens too.
 */
export async function openRecoverySession(
  flags: RecoveryReadFlags,
  io: CliIO,
  mode: { readonly readOnly: boolean },
): Promise<RecoverySession> {
  const workload = flags.route !== undefined ? await readWorkloadFile(flags.route, io.cwd) : null;
  const url = flags.journal ?? workloadJournalUrl(workload!);
  // As `dpone run` does: a journal URL from the workload resolves against the workload's folder.
  const base = flags.journal === undefined && workload ? dirname(workload.file) : io.cwd;
  const label = redactUrl(url);
  // Recovery reads only the target's fence: the source's password is not needed.
  checkRequiredSecrets(workload, url, io.env, ['target']);
  const journalFile = journalFilePath(url, base);
  if (journalFile !== null && !existsSync(journalFile)) {
    throw invalidInput(`no journal exists at ${label}`, {
      field: flags.journal !== undefined ? '--journal' : '--route',
    });
  }
  // The route resolved once for the session: the fence location, the fence and the leftovers.
  const route = workload && workload.target.fence !== 'none' ? await resolveRoute(workload) : null;
  const fenceLocation = workload ? (route ? await route.fenceLocation() : NO_FENCE_LOCATION) : null;
  const journal = await openJournal(url, {
    cwd: base,
    env: io.env,
    readOnly: mode.readOnly,
    warn: journalWarning(io),
  });
  let fence: FenceAccess | null = null;
  try {
    // Only apply writes: it may raise the fence's epoch before it reads the proof.
    if (workload)
      fence = mode.readOnly
        ? await openFenceReader(workload, io, route ?? undefined)
        : await openFenceAccess(workload, io, route ?? undefined);
  } catch (error) {
    await journal.close();
    throw error;
  }
  return {
    journal,
    journalLabel: label,
    workload,
    route,
    fence,
    fenceLocation,
    async [Symbol.asyncDispose]() {
      try {
        if (fence) await fence[Symbol.asyncDispose]();
      } finally {
        await journal.close();
      }
    },
  };
}

/** Reads the entry and its history; an unknown operation id is bad input naming the flag. */
export async function readOperation(session: RecoverySession, operationId: string) {
  let entry;
  let history;
  try {
    entry = await session.journal.get(operationId);
    history = entry ? await session.journal.history(operationId) : [];
  } catch (error) {
    if (error instanceof DponeError) throw error;
    throw new DponeError(
      ERROR_CODES.JOURNAL_UNAVAILABLE,
      'the commit journal could not be read',
      { operationId },
      { cause: error },
    );
  }
  if (entry === null) {
    throw invalidInput(`no journal entry for this operation id in ${session.journalLabel}`, {
      field: '--operation-id',
      operationId,
    });
  }
  return { entry, history };
}
