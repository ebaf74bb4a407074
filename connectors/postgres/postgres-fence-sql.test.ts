import { describe, expect, it } from 'vitest';
import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import { postgresDialect } from './postgres-dialect.ts';
import { postgresFence } from './postgres-fence.ts';
import type { PostgresSession } from './postgres-session.ts';

/**
 * The fence statements a PostgreSQL target sends, byte for byte: the kernel writes them once
 * (src/adapters/connectors/marker-fence/marker-sql.ts) in this engine's style. Statement-level
 * fault points (`stmt:<step>.<n>`) count these statements and the certified routes ran against
 * them: a change here is a protocol change, made on purpose, never by a refactoring.
 */
describe('the PostgreSQL fence statements', () => {
  it('are the ones the certified routes ran against (default schema)', () => {
    // Building the dialect opens nothing: only its statements are read here.
    const fence = postgresFence('postgres://h/db', undefined);
    const dialect = postgresDialect(null as unknown as PostgresSession, {
      fence,
      table: 'events',
      faults: NO_FAULTS,
    });
    expect(dialect.sql).toEqual({
      insertIfAbsent:
        'INSERT INTO "public"."_dpone_fence" (operation_id, epoch, status, intent_digest, holder, updated_at_ms) VALUES (@operation_id, @epoch, \'prepared\', @intent_digest, @holder, @now_ms) ON CONFLICT (operation_id) DO NOTHING',
      raiseEpoch:
        'UPDATE "public"."_dpone_fence" SET epoch = @epoch, holder = CASE WHEN status = \'committed\' THEN holder ELSE @holder END, intent_digest = COALESCE(intent_digest, @intent_digest), updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch AND (intent_digest IS NULL OR intent_digest = @intent_digest)',
      raiseEpochAnyIntent:
        'UPDATE "public"."_dpone_fence" SET epoch = @epoch, holder = CASE WHEN status = \'committed\' THEN holder ELSE @holder END, intent_digest = COALESCE(intent_digest, @intent_digest), updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch',
      overwriteFence:
        'UPDATE "public"."_dpone_fence" SET epoch = @epoch, holder = @holder, intent_digest = @intent_digest, status = \'prepared\', committed_epoch = NULL, updated_at_ms = @now_ms WHERE operation_id = @operation_id',
      select:
        'SELECT epoch, status, committed_epoch, rows_written, intent_digest, holder FROM "public"."_dpone_fence" WHERE operation_id = @operation_id',
      guard:
        'UPDATE "public"."_dpone_fence" SET status = \'committed\', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch = @epoch AND status <> \'committed\' AND intent_digest = @intent_digest',
      recordRows:
        'UPDATE "public"."_dpone_fence" SET rows_written = @rows_written WHERE operation_id = @operation_id AND status = \'committed\' AND committed_epoch = @epoch',
      guardEpochOnly:
        'UPDATE "public"."_dpone_fence" SET status = \'committed\', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch = @epoch',
      guardIgnoringEpoch:
        'UPDATE "public"."_dpone_fence" SET status = \'committed\', committed_epoch = @epoch, rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND status <> \'committed\' AND intent_digest = @intent_digest',
    });
  });
});
