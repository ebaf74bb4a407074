import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { FenceRef } from '../../src/ports/connector.ts';
import { checkGeneration } from './clickhouse-epoch.ts';
import { foldFenceLog } from './clickhouse-fence.ts';

const INTENT = `sha256:${'1'.repeat(64)}`;
const fence: FenceRef = { operationId: 'op-1', epoch: 2, intentDigest: INTENT, holder: 'h2' };
const log = (...events: [number, string, string?][]) =>
  foldFenceLog(
    events.map(([epoch, holder, intent = INTENT]) => ({
      kind: 'epoch',
      epoch,
      rows: 0,
      intent_digest: intent,
      holder,
    })),
  );
const refusal = (fenceLog: ReturnType<typeof log>) => {
  try {
    checkGeneration(fenceLog, fence);
  } catch (error) {
    return error;
  }
  return null;
};

describe('the ClickHouse generation check (nothing is staged when it refuses)', () => {
  it("passes the caller's own epoch, held by the caller alone for its intent", () => {
    expect(refusal(log([1, 'h1'], [2, 'h2']))).toBeNull();
  });

  it.each([
    [
      'no fence log',
      log(),
      ERROR_CODES.DIVERGED,
      'the ClickHouse target holds no fence log for this operation where this run looks; nothing was written',
    ],
    [
      'another intent',
      log([2, 'h2', `sha256:${'2'.repeat(64)}`]),
      ERROR_CODES.INTENT_CONFLICT,
      'the ClickHouse fence log holds another intent digest for this operation id; nothing was written',
    ],
    [
      'a newer epoch',
      log([3, 'h3']),
      ERROR_CODES.FENCED,
      'the target fence holds epoch 3 (holder another), not 2 of this holder; nothing was written',
    ],
    [
      'its epoch installed twice',
      log([2, 'h2'], [2, 'h9']),
      ERROR_CODES.FENCED,
      'the target fence holds epoch 2 (holder ambiguous), not 2 of this holder; nothing was written',
    ],
  ])('refuses %s in its own words', (_case, fenceLog, code, message) => {
    expect(refusal(fenceLog)).toMatchObject({ code, message, fields: { operationId: 'op-1' } });
  });
});
