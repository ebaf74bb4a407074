import { join } from 'node:path';
import { DponeError, ERROR_CODES } from '../../contracts/errors.ts';
import type { CommitJournalEntry } from '../../contracts/journal.ts';
import type { StateSink } from '../../ports/state-sink.ts';
import { writeFileAtomically } from './atomic-file.ts';

/** What a checkpoint file holds: safe identities and counts only, never row values or URLs. */
export interface Checkpoint {
  readonly kind: 'dpone.checkpoint.v1';
  readonly operation_id: string;
  readonly intent_digest: string;
  /** The journal state when the checkpoint was written (TARGET_COMMITTED or COMMITTED_INCOMPLETE). */
  readonly state: string;
  readonly version: number;
  readonly rows_written: number;
  readonly fence_epoch: number;
  readonly target_identity: string;
  readonly workload_id: string;
}

/**
 * The runtime's state sink: after the target committed, writes one checkpoint per operation to
 * `<stateDir>/checkpoints/<hex of operation id>.json`, atomically (temp + fsync + rename + fsync of
 * the folder). Writing it again for the same operation replaces it, so a resumed completion is
 * idempotent.
 */
export class FileStateSink implements StateSink {
  readonly #stateDir: string;

  constructor(stateDir: string) {
    this.#stateDir = stateDir;
  }

  /** Path of an operation's checkpoint file. */
  checkpointPath(operationId: string): string {
    return join(this.#stateDir, 'checkpoints', `${operationId.replace(/^sha256:/, '')}.json`);
  }

  /** Durable before it resolves; rejects with DPONE_TARGET_COMMITTED_INCOMPLETE when it cannot write. */
  async complete(entry: CommitJournalEntry): Promise<void> {
    const checkpoint: Checkpoint = {
      kind: 'dpone.checkpoint.v1',
      operation_id: entry.operation_id,
      intent_digest: entry.intent_digest,
      state: entry.state,
      version: entry.version,
      rows_written: entry.result?.rows_written ?? 0,
      fence_epoch: entry.result?.fence_epoch ?? 0,
      target_identity: entry.result?.target_identity ?? entry.metadata.target_identity,
      workload_id: entry.metadata.workload_id,
    };
    try {
      await writeFileAtomically(
        this.checkpointPath(entry.operation_id),
        `${JSON.stringify(checkpoint, null, 2)}\n`,
      );
    } catch (error) {
      throw new DponeError(
        ERROR_CODES.COMMITTED_INCOMPLETE,
        'the checkpoint could not be written to the state directory',
        { operationId: entry.operation_id, state: entry.state, journalVersion: entry.version },
        { cause: error },
      );
    }
  }
}
