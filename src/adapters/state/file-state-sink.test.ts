import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../contracts/errors.ts';
import type { CommitJournalEntry } from '../../contracts/journal.ts';
import { FileStateSink } from './file-state-sink.ts';

const OPERATION = `sha256:${'ab'.repeat(32)}`;

function entry(version: number, rows: number): CommitJournalEntry {
  return {
    operation_id: OPERATION,
    intent_digest: `sha256:${'cd'.repeat(32)}`,
    state: 'TARGET_COMMITTED',
    version,
    lease: { holder: 'worker-a', epoch: 2, expires_at_ms: 1 },
    last_epoch: 2,
    metadata: { workload_id: 'orders_to_events', target_identity: 'db:events' },
    result: { rows_written: rows, fence_epoch: 2, target_identity: 'db:events' },
    created_at_ms: 1,
    updated_at_ms: 2,
  };
}

describe('FileStateSink', () => {
  it('writes the checkpoint with safe fields only and leaves no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-state-'));
    const sink = new FileStateSink(dir);
    await sink.complete(entry(6, 5));
    const path = sink.checkpointPath(OPERATION);
    expect(path).toBe(join(dir, 'checkpoints', `${'ab'.repeat(32)}.json`));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      kind: 'dpone.checkpoint.v1',
      operation_id: OPERATION,
      intent_digest: `sha256:${'cd'.repeat(32)}`,
      state: 'TARGET_COMMITTED',
      version: 6,
      rows_written: 5,
      fence_epoch: 2,
      target_identity: 'db:events',
      workload_id: 'orders_to_events',
    });
    expect(readdirSync(join(dir, 'checkpoints'))).toEqual([`${'ab'.repeat(32)}.json`]);
  });

  it('replaces the checkpoint when completion is resumed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-state-'));
    const sink = new FileStateSink(dir);
    await sink.complete(entry(6, 5));
    await sink.complete(entry(8, 5));
    expect(JSON.parse(readFileSync(sink.checkpointPath(OPERATION), 'utf8')).version).toBe(8);
    expect(readdirSync(join(dir, 'checkpoints'))).toHaveLength(1);
  });

  it('rejects with COMMITTED_INCOMPLETE naming only safe fields when it cannot write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-state-'));
    writeFileSync(join(dir, 'checkpoints'), 'a file where the folder should be');
    const error = await new FileStateSink(dir).complete(entry(6, 5)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DponeError);
    expect((error as DponeError).code).toBe(ERROR_CODES.COMMITTED_INCOMPLETE);
    expect((error as DponeError).toJSON()).toMatchObject({ operationId: OPERATION, journalVersion: 6 });
    expect((error as DponeError).message).not.toContain(dir);
  });
});
