import { describe, expect, it } from 'vitest';
import type { TraceBook } from '../plan/trace.ts';
import { loadRoute } from '../routes/route-registry.ts';
import type { PlanContext } from './fault.ts';
import { PHASES, lostAckFault, networkFault } from './network-fault.ts';
import { serverKillFault } from './server-fault.ts';

const noTraces: TraceBook = { clean: [], recovery: new Map(), cleanDurationMs: 0 };

async function contextOf(route: string, traces: TraceBook = noTraces): Promise<PlanContext> {
  const { capabilities, lossModes } = await loadRoute(route);
  return { seed: 42, traces, capabilities, ...(lossModes ? { lossModes } : {}) };
}

describe('network and server fault planning', () => {
  it('plans one cell per phase and toxic with stable ids and the evidence fields toxic and phase', async () => {
    const context = await contextOf('postgres');
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

  it('heal_at: the network comes back at that point of the same attempt, and the cell says where', async () => {
    const context = await contextOf('sqlite-to-clickhouse');
    const drafts = networkFault.plan(
      { kind: 'network', phases: ['staged', 'commit'], toxics: ['down'], heal_at: 'target.mutate:after' },
      context,
    );
    expect(drafts.map((d) => d.localId)).toEqual([
      'staged/down>healed@target.mutate:after',
      'commit/down>healed@target.mutate:after',
    ]);
    for (const draft of drafts) {
      expect(draft.fault).toMatchObject({ heal_at: 'target.mutate:after' });
      expect(draft.params).toMatchObject({ heal: 'target.mutate:after' });
    }
    // Without heal_at the toxic stays until the attempt ended, and nothing names a heal point.
    const plain = networkFault.plan({ kind: 'network', phases: ['commit'], toxics: ['down'] }, context);
    expect(plain[0]!.fault).not.toHaveProperty('heal_at');
    expect(plain[0]!.params).not.toHaveProperty('heal');
  });

  it('a route into ClickHouse adds its staging phases; an embedded journal has no connection to cut', async () => {
    const phases = new Set(
      networkFault
        .plan({ kind: 'network', toxics: ['down'] }, await contextOf('sqlite-to-clickhouse'))
        .map((d) => d.fault.phase),
    );
    expect([...phases].sort()).toEqual(
      ['commit', 'fence-prepare', 'fence-query', 'mutation', 'settle', 'stage', 'staged'].sort(),
    );
    const withJournal = networkFault.plan(
      { kind: 'network', toxics: ['down'] },
      await contextOf('postgres-to-clickhouse'),
    );
    expect(withJournal.map((d) => d.fault.phase)).toEqual(
      expect.arrayContaining(['before-intent', 'state-complete', 'stage']),
    );
  });

  it('a route that proxies no connection still plans its phases, each ending UNVERIFIED with the reason', async () => {
    const context = await contextOf('sqlite');
    expect(context.capabilities?.proxies).toEqual([]);
    const drafts = networkFault.plan({ kind: 'network', toxics: ['down'] }, context);
    expect(drafts.map((d) => d.fault.phase).sort()).toEqual(Object.keys(PHASES).sort());
    const outcome = await networkFault.run(
      { cell: { route: 'sqlite', params: drafts[0]!.params }, fixture: {} } as unknown as Parameters<
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

  it('only the points the clean trace passes are planned (a replace step is no point of an append run)', async () => {
    const points = [
      'journal.create:before',
      'target.stage:before',
      'target.commit:before',
      'target.commit:after',
    ];
    const traces = { ...noTraces, clean: points.map((point) => ({ point, hit: 1 })) };
    const context = await contextOf('sqlite-to-clickhouse', traces);
    expect(networkFault.plan({ kind: 'network', toxics: ['down'] }, context).map((d) => d.localId)).toEqual([
      'commit/down',
      'stage/down',
    ]);
    expect(serverKillFault.plan({ kind: 'server-kill' }, context).map((d) => d.localId)).toEqual([
      'target/swap',
      'target/swapped',
      'target/swapped-sigterm',
    ]);
    expect(
      serverKillFault
        .plan({ kind: 'server-kill', signals: ['SIGTERM'], points: ['target.commit:before'] }, context)
        .map((d) => d.fault),
    ).toEqual([
      expect.objectContaining({ signal: 'SIGTERM', point: 'target.commit:before', server: 'target' }),
    ]);
  });

  it('the lost-ack cell is kind lost-ack at target.commit:before and sensitive; server kills name their server', async () => {
    const context = await contextOf('postgres');
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
    const context = await contextOf('sqlite');
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
    const postgres = await contextOf('postgres');
    expect(serverKillFault.unavailableIn!(embedded, postgres.capabilities)).toMatch(
      /provider embedded owns no server/,
    );
  });
});
