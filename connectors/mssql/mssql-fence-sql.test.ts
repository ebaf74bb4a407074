import { describe, expect, it } from 'vitest';
import { FENCE_SQL, installFenceSql } from './mssql-fence.ts';

/**
 * The fence statements an MSSQL target sends, byte for byte: the kernel writes them once
 * (src/adapters/connectors/marker-fence/marker-sql.ts) in this engine's style. Statement-level
 * fault points (`stmt:<step>.<n>`) count these statements and the certified routes ran against
 * them: a change here is a protocol change, made on purpose, never by a refactoring.
 * The fake driver's model (mssql-fence-model.ts) answers by the protocol, not by this text:
 * without this pin, a dropped table hint (the guard's UPDLOCK) failed no unit test here.
 */
describe('the MSSQL fence statements', () => {
  it('are the ones the certified routes ran against (default schema)', () => {
    expect(FENCE_SQL).toEqual({
      insertIfAbsent:
        "INSERT INTO [dbo].[_dpone_fence] (operation_id, epoch, status, intent_digest, holder, updated_at_ms) SELECT @operation_id, @epoch, N'prepared', @intent_digest, @holder, @now_ms WHERE NOT EXISTS (SELECT 1 FROM [dbo].[_dpone_fence] WITH (UPDLOCK, HOLDLOCK) WHERE operation_id = @operation_id);",
      raiseEpoch:
        "UPDATE [dbo].[_dpone_fence] SET epoch = @epoch, holder = CASE WHEN status = N'committed' THEN holder ELSE @holder END, intent_digest = COALESCE(intent_digest, @intent_digest), updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch AND (intent_digest IS NULL OR intent_digest = @intent_digest);",
      raiseEpochAnyIntent:
        "UPDATE [dbo].[_dpone_fence] SET epoch = @epoch, holder = CASE WHEN status = N'committed' THEN holder ELSE @holder END, intent_digest = COALESCE(intent_digest, @intent_digest), updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch;",
      overwriteFence:
        "UPDATE [dbo].[_dpone_fence] SET epoch = @epoch, holder = @holder, intent_digest = @intent_digest, status = N'prepared', committed_epoch = NULL, updated_at_ms = @now_ms WHERE operation_id = @operation_id;",
      select:
        'SELECT epoch, status, committed_epoch, rows_written, intent_digest, holder FROM [dbo].[_dpone_fence] WITH (READCOMMITTEDLOCK) WHERE operation_id = @operation_id',
      guard:
        "UPDATE [dbo].[_dpone_fence] WITH (ROWLOCK, UPDLOCK) SET status = N'committed', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch = @epoch AND status <> N'committed' AND intent_digest = @intent_digest; SELECT @@ROWCOUNT AS affected;",
      recordRows:
        "UPDATE [dbo].[_dpone_fence] SET rows_written = @rows_written WHERE operation_id = @operation_id AND status = N'committed' AND committed_epoch = @epoch;",
      guardEpochOnly:
        "UPDATE [dbo].[_dpone_fence] WITH (ROWLOCK, UPDLOCK) SET status = N'committed', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch = @epoch; SELECT @@ROWCOUNT AS affected;",
      guardIgnoringEpoch:
        "UPDATE [dbo].[_dpone_fence] WITH (ROWLOCK, UPDLOCK) SET status = N'committed', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND status <> N'committed' AND intent_digest = @intent_digest; SELECT @@ROWCOUNT AS affected;",
    });
  });

  it('install as one batch: insert if absent, raise, read back', () => {
    expect(installFenceSql(true)).toBe(
      "INSERT INTO [dbo].[_dpone_fence] (operation_id, epoch, status, intent_digest, holder, updated_at_ms) SELECT @operation_id, @epoch, N'prepared', @intent_digest, @holder, @now_ms WHERE NOT EXISTS (SELECT 1 FROM [dbo].[_dpone_fence] WITH (UPDLOCK, HOLDLOCK) WHERE operation_id = @operation_id); UPDATE [dbo].[_dpone_fence] SET epoch = @epoch, holder = CASE WHEN status = N'committed' THEN holder ELSE @holder END, intent_digest = COALESCE(intent_digest, @intent_digest), updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch AND (intent_digest IS NULL OR intent_digest = @intent_digest); SELECT epoch, status, committed_epoch, rows_written, intent_digest, holder FROM [dbo].[_dpone_fence] WITH (READCOMMITTEDLOCK) WHERE operation_id = @operation_id;",
    );
  });
});
