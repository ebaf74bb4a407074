import { describe, expect, it } from 'vitest';
import { PHASES, lostAckFault, networkFault } from './network-fault.ts';
import { serverKillFault } from './server-fault.ts';

const context = { seed: 42, traces: { clean: [], recovery: new Map() } } as unknown as Parameters<
  typeof networkFault.plan
>[1];

describe('network and server fault planning', () => {
  it('plans one cell per phase and toxic with stable ids and the evidence fields toxic and phase', () => {
    const drafts = networkFault.plan({ kind: 'network' }, context);
    expect(drafts).toHaveLength(6 * 5);
    expect(drafts.map((d) => d.localId)).toContain('commit/timeout');
    for (const draft of drafts) {
      expect(draft.fault).toMatchObject({
        kind: 'network',
        toxic: expect.any(String),
        phase: expect.any(String),
      });
      expect(PHASES[draft.fault.phase as keyof typeof PHASES].point).toBe(draft.fault.point);
    }
    expect(networkFault.plan({ kind: 'network' }, context)).toEqual(drafts);
    expect(
      networkFault
        .plan({ kind: 'network', phases: ['commit'], toxics: ['down'] }, context)
        .map((d) => d.localId),
    ).toEqual(['commit/down']);
  });

  it('the lost-ack cell is kind lost-ack at target.commit:before and sensitive; server kills name their server', () => {
    const [lost] = lostAckFault.plan({ kind: 'lost-ack' }, context);
    expect(lost).toMatchObject({
      sensitive: true,
      fault: {
        kind: 'lost-ack',
        toxic: 'timeout',
        stream: 'downstream',
        timeout: 0,
        point: 'target.commit:before',
      },
    });
    const kills = serverKillFault.plan({ kind: 'server-kill' }, context);
    expect(kills.map((d) => d.localId)).toEqual([
      'target/commit',
      'target/commit-sent',
      'journal/before-intent',
      'journal/entering-committing',
      'journal/in-committing',
    ]);
    expect(kills.every((d) => d.fault.kind === 'server-kill' && typeof d.fault.server === 'string')).toBe(
      true,
    );
  });
});
