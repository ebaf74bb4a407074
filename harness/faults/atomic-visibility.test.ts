import { describe, expect, it } from 'vitest';
import type { TargetInspector } from '../inspectors/target-inspector.ts';
import type { TargetSnapshot } from '../evidence/evidence-types.ts';
import { atomicVisibility, targetImages } from './atomic-visibility.ts';

/** An inspector whose target digest the test sets; the source (the whole load) stays the same. */
function inspectorShowing(states: { digest: string; rows: number }[]): TargetInspector {
  let index = 0;
  return {
    identity: 'test:events',
    installAudit: async () => undefined,
    snapshot: async () => {
      const state = states[Math.min(index++, states.length - 1)]!;
      return {
        target_digest: state.digest,
        row_count: state.rows,
        source_digest: 'sha256:loaded',
        source_row_count: 22,
      } as TargetSnapshot;
    },
    close: async () => undefined,
    [Symbol.asyncDispose]: async () => undefined,
  };
}

describe('atomic-visibility', () => {
  it('reads the target alone after the kill when the inspector can, and still fails a partial mutation', async () => {
    const inspector = inspectorShowing([{ digest: 'sha256:before', rows: 5 }]);
    let reads = 0;
    const reading: TargetInspector = {
      ...inspector,
      snapshot: inspector.snapshot,
      targetDigest: async () => ({ digest: reads++ === 0 ? 'sha256:emptied' : 'sha256:loaded', rows: 2 }),
    };
    const images = await targetImages(reading);
    const failed = await atomicVisibility(reading, images, 'after the kill at target.commit:before#1');
    expect(failed).toMatchObject({ verdict: 'FAIL' });
    expect(failed.detail).toContain('nor the whole load (22): 2 rows');
    expect(await atomicVisibility(reading, images, 'later')).toMatchObject({ verdict: 'PASS' });
  });

  it('passes when the killed attempt left the rows from before or the whole load', async () => {
    for (const after of ['sha256:before', 'sha256:loaded']) {
      const inspector = inspectorShowing([
        { digest: 'sha256:before', rows: 5 },
        { digest: after, rows: 0 },
      ]);
      const images = await targetImages(inspector);
      const check = await atomicVisibility(inspector, images, 'after the kill at target.commit:before#1');
      expect(check).toMatchObject({ name: 'atomic-visibility', verdict: 'PASS' });
    }
  });

  it('fails on anything between: a replace whose partition was emptied but not loaded', async () => {
    const inspector = inspectorShowing([
      { digest: 'sha256:before', rows: 5 },
      { digest: 'sha256:emptied', rows: 2 },
    ]);
    const images = await targetImages(inspector);
    const check = await atomicVisibility(inspector, images, 'after the kill at target.commit:before#1');
    expect(check.verdict).toBe('FAIL');
    expect(check.detail).toContain('neither its rows from before (5) nor the whole load (22): 2 rows');
  });
});
