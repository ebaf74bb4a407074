import { describe, expect, it } from 'vitest';
import type { BulkLoadRow } from './bulk-load.ts';
import { targetVerdicts } from './targets.ts';

const row = (database: string, rows: number, extra: Partial<BulkLoadRow>): BulkLoadRow => ({
  database,
  rows,
  floor_ms: 1000,
  protocol_ms: 1000,
  ratio: 1,
  floor_cpu_ms: 0,
  protocol_cpu_ms: 0,
  cpu_ratio: null,
  worker_rss_mb: 100,
  worker_flags: '',
  ...extra,
});

describe('targetVerdicts', () => {
  it('names rows through Node when the bare copy alone misses the target, the protocol when it does not', () => {
    const verdicts = targetVerdicts(
      [
        row('sqlite', 1_000_000, { protocol_ms: 3000, ratio: 3, bare_ms: 2500, bare_ratio: 2.5 }),
        row('postgres', 1_000_000, { protocol_ms: 2400, ratio: 2.4, bare_ms: 1200, bare_ratio: 1.2 }),
      ],
      [],
    );
    expect(verdicts[0]).toMatchObject({ met: false });
    expect(verdicts[0]!.held_back_by).toMatch(/^rows through Node: the bare copy alone is 2.5× the floor/);
    expect(verdicts[1]).toMatchObject({ met: false });
    expect(verdicts[1]!.held_back_by).toMatch(/^the protocol: 2× the bare copy/);
  });

  it('meets a target within its limit, and never calls an unmeasured one met', () => {
    const verdicts = targetVerdicts([row('sqlite', 1_000_000, { ratio: 1.9, worker_rss_mb: 150 })], []);
    expect(verdicts[0]).toMatchObject({ met: true, held_back_by: '' });
    expect(verdicts[1]).toMatchObject({ met: null });
    expect(verdicts[2]).toMatchObject({ met: true });
    expect(
      verdicts
        .filter((verdict) => verdict.measured === 'not measured in this run')
        .every((v) => v.met === null),
    ).toBe(true);
  });

  it('judges RSS on the unflagged runs only, at every large size', () => {
    const verdicts = targetVerdicts(
      [
        row('postgres', 1_000_000, { worker_rss_mb: 150 }),
        row('postgres', 5_000_000, { worker_rss_mb: 260 }),
        row('postgres', 5_000_000, { worker_rss_mb: 90, worker_flags: '--max-semi-space-size=4' }),
      ],
      [],
    );
    expect(verdicts[3]).toMatchObject({ met: false, measured: '1M: 150 MB, 5M: 260 MB' });
  });
});
