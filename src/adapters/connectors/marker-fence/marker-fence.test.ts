import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../contracts/errors.ts';
import type { FenceRef } from '../../../ports/connector.ts';
import { guardCommit } from './marker-fence.ts';
import type { SqlRunner } from './marker-dialect.ts';
import type { FenceSql } from './marker-sql.ts';

const INTENT = `sha256:${'1'.repeat(64)}`;
const fence: FenceRef = { operationId: 'op-1', epoch: 2, intentDigest: INTENT, holder: 'h2' };
const sql = { guard: 'GUARD', select: 'SELECT' } as unknown as FenceSql;
/** A transaction whose guard matched nothing, the fence row as `row` (none: undefined). */
const tx = (row?: Record<string, unknown>): SqlRunner => ({
  run: async (statement) =>
    statement === 'GUARD' ? { rows: [], affected: 0 } : { rows: row ? [row] : [], affected: 0 },
});
const row = (epoch: number, intent = INTENT, status = 'prepared') => ({
  epoch,
  intent_digest: intent,
  holder: `h${epoch}`,
  status,
  committed_epoch: status === 'committed' ? epoch : null,
  rows_written: status === 'committed' ? 3 : null,
});

describe('the marker fence guard when it matched nothing (the caller rolls back)', () => {
  it("answers applied: false for the caller's own epoch, already committed", async () => {
    await expect(guardCommit(tx(row(2, INTENT, 'committed')), sql, fence, null, 0)).resolves.toMatchObject({
      applied: false,
      answer: { status: 'committed', epoch: 2 },
    });
  });

  it.each([
    [
      'no fence row',
      undefined,
      ERROR_CODES.DIVERGED,
      'the target holds no fence for this operation where this run looks; nothing was written',
    ],
    [
      'another intent',
      row(2, `sha256:${'2'.repeat(64)}`),
      ERROR_CODES.INTENT_CONFLICT,
      'the target fence holds another intent digest for this operation id; nothing was written',
    ],
    [
      'another epoch',
      row(3),
      ERROR_CODES.FENCED,
      'the target fence holds epoch 3, not 2; nothing was written',
    ],
  ])('refuses %s in its own words', async (_case, fenceRow, code, message) => {
    await expect(guardCommit(tx(fenceRow), sql, fence, null, 0)).rejects.toMatchObject({
      code,
      message,
      fields: { operationId: 'op-1' },
    });
  });
});
