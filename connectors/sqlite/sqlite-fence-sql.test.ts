import { describe, expect, it } from 'vitest';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { sqliteDialect } from './sqlite-dialect.ts';

/**
 * The fence statements a SQLite target sends, byte for byte: the kernel writes them once
 * (src/adapters/connectors/marker-fence/marker-sql.ts) in this engine's style. Statement-level
 * fault points (`stmt:<step>.<n>`) count these statements and the certified routes ran against
 * them: a change here is a protocol change, made on purpose, never by a refactoring.
 */
describe('the SQLite fence statements', () => {
  it('are the ones the certified routes ran against', () => {
    // Building the dialect opens nothing: only its statements are read here.
    expect(sqliteDialect(null as unknown as SqliteDatabase, 'events').sql).toEqual({
      insertIfAbsent:
        "INSERT INTO main._dpone_fence (operation_id, epoch, status, intent_digest, holder, updated_at_ms) VALUES (@operation_id, @epoch, 'prepared', @intent_digest, @holder, @now_ms) ON CONFLICT (operation_id) DO NOTHING",
      raiseEpoch:
        "UPDATE main._dpone_fence SET epoch = @epoch, holder = CASE WHEN status = 'committed' THEN holder ELSE @holder END, intent_digest = COALESCE(intent_digest, @intent_digest), updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch AND (intent_digest IS NULL OR intent_digest = @intent_digest)",
      raiseEpochAnyIntent:
        "UPDATE main._dpone_fence SET epoch = @epoch, holder = CASE WHEN status = 'committed' THEN holder ELSE @holder END, intent_digest = COALESCE(intent_digest, @intent_digest), updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch",
      overwriteFence:
        "UPDATE main._dpone_fence SET epoch = @epoch, holder = @holder, intent_digest = @intent_digest, status = 'prepared', committed_epoch = NULL, updated_at_ms = @now_ms WHERE operation_id = @operation_id",
      select:
        'SELECT epoch, status, committed_epoch, rows_written, intent_digest, holder FROM main._dpone_fence WHERE operation_id = @operation_id',
      guard:
        "UPDATE main._dpone_fence SET status = 'committed', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch = @epoch AND status <> 'committed' AND intent_digest = @intent_digest",
      recordRows:
        "UPDATE main._dpone_fence SET rows_written = @rows_written WHERE operation_id = @operation_id AND status = 'committed' AND committed_epoch = @epoch",
      guardEpochOnly:
        "UPDATE main._dpone_fence SET status = 'committed', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch = @epoch",
      guardIgnoringEpoch:
        "UPDATE main._dpone_fence SET status = 'committed', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND status <> 'committed' AND intent_digest = @intent_digest",
    });
  });
});
