import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { clickhouseTargetForHarness } from './clickhouse-unsafe-variants.ts';

const DEAD = {
  url: 'clickhouse://u@127.0.0.1:1/x?request_timeout_ms=300',
  table: 'events',
  columns: ['id', 'day'],
  naturalKey: ['id'],
  partitionColumn: 'day',
};

describe('clickhouse unsafe variants are reachable only from the harness', () => {
  it('DPONE_UNSAFE_VARIANT alone is ignored: the certified target is opened', async () => {
    // The certified target tries the (dead) server: FENCE_UNAVAILABLE, not a variant.
    await expect(clickhouseTargetForHarness(DEAD, { DPONE_UNSAFE_VARIANT: 'no-seal' })).rejects.toMatchObject(
      {
        code: ERROR_CODES.FENCE_UNAVAILABLE,
      },
    );
  });

  it('an unknown name under DPONE_HARNESS=1 is bad input naming the variable, before any I/O', async () => {
    await expect(
      clickhouseTargetForHarness(DEAD, { DPONE_HARNESS: '1', DPONE_UNSAFE_VARIANT: 'nope' }),
    ).rejects.toMatchObject({ code: ERROR_CODES.INVALID_INPUT, fields: { field: 'DPONE_UNSAFE_VARIANT' } });
  });
});
