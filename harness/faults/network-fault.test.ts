import { describe, expect, it } from 'vitest';
import { EMBEDDED_ENGINE } from '../routes/route-registry.ts';
import { SERVER_ENGINE, contextOf } from './fixtures/plan-context.ts';
import { PHASES, lostAckFault, networkFault } from './network-fault.ts';
import { serverKillFault } from './server-fault.ts';

// A staging target's own phases and points: its engine's folder (connectors/<engine>/harness/faults/).

describe('network and server fault planning', () => {
  it('plans one cell per phase and toxic with stable ids and the evidence fields toxic and phase', async () => {
    const context = await contextOf(SERVER_ENGINE);
    const drafts = networkFault.plan({ kind: 'network' }, context);
    expect(drafts).toHaveLength(6 * 5);
    expect(drafts.map((d) => d.localId)).toContain('commit/timeout');
    for (const draft of drafts) {
      expect(draft.fault).toMatchObject({
        kind: 'network',
        toxic: expect.any(String),
        phase: expect.any(String),
      });
      expect(PHASES[draft.fault.phase!]!.point).toBe(draft.fault.point);
    }
    expect(networkFault.plan({ kind: 'network' }, context)).toEqual(drafts);
    expect(
      networkFault
        .plan({ kind: 'network', phases: ['commit'], toxics: ['down'] }, context)
        .map((d) => d.localId),
    ).toEqual(['commit/down']);
  });

  it('a route that proxies no connection still plans its phases, each ending UNVERIFIED with the reason', async () => {
    const context = await contextOf(EMBEDDED_ENGINE);
    expect(context.capabilities?.proxies).toEqual([]);
    const drafts = networkFault.plan({ kind: 'network', toxics: ['down'] }, context);
    expect(drafts.map((d) => d.fault.phase).sort()).toEqual(Object.keys(PHASES).sort());
    const outcome = await networkFault.run(
      { cell: { route: EMBEDDED_ENGINE, params: drafts[0]!.params }, fixture: {} } as unknown as Parameters<
        typeof networkFault.run
      >[0],
      { kind: 'network', toxics: ['down'] },
    );
    expect(outcome.extraChecks).toEqual([
      {
        name: 'route-capability',
        verdict: 'UNVERIFIED',
        detail: expect.stringMatching(
          /has no proxy on its (target|journal) connection .*declares no network/,
        ),
      },
    ]);
  });

  it('the lost-ack cell is kind lost-ack at target.commit:before and sensitive; server kills name their server', async () => {
    const context = await contextOf(SERVER_ENGINE);
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

  it('a route with no server to kill still plans a cell per server, which the runner ends UNVERIFIED with the reason', async () => {
    const context = await contextOf(EMBEDDED_ENGINE);
    const drafts = serverKillFault.plan({ kind: 'server-kill' }, context);
    expect(drafts.map((d) => [d.localId, d.fault.point])).toEqual([
      ['target/commit', 'target.commit:before'],
      ['journal/before-intent', 'journal.create:before'],
    ]);
    const embedded = { provider: 'embedded', services: {} } as unknown as Parameters<
      NonNullable<typeof serverKillFault.unavailableIn>
    >[0];
    expect(serverKillFault.unavailableIn!(embedded, context.capabilities)).toMatch(
      /owns no server .*a plug-in target that declares no serverKills/,
    );
    // A route whose own parts start a server per cell (a plug-in declaring serverKills) runs anywhere.
    const own = { ...context.capabilities!, ownServers: true };
    expect(serverKillFault.unavailableIn!(embedded, own)).toBeNull();
    // A built-in server route still needs a provider that owns a server of the cell's own.
    const server = await contextOf(SERVER_ENGINE);
    expect(serverKillFault.unavailableIn!(embedded, server.capabilities)).toMatch(
      /provider embedded owns no server/,
    );
  });
});
