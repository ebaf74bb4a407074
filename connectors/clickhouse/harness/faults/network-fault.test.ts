import { describe, expect, it } from 'vitest';
import { NO_TRACES, SERVER_ENGINE, contextOf } from '../../../../harness/faults/fixtures/plan-context.ts';
import { networkFault } from '../../../../harness/faults/network-fault.ts';
import { serverKillFault } from '../../../../harness/faults/server-fault.ts';
import { EMBEDDED_ENGINE } from '../../../../harness/routes/route-registry.ts';

/** A route into ClickHouse from the embedded source, whose journal is the embedded file journal. */
const ROUTE = `${EMBEDDED_ENGINE}-to-clickhouse`;

describe('network and server fault planning on routes into ClickHouse', () => {
  it('heal_at: the network comes back at that point of the same attempt, and the cell says where', async () => {
    const context = await contextOf(ROUTE);
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
        .plan({ kind: 'network', toxics: ['down'] }, await contextOf(ROUTE))
        .map((d) => d.fault.phase),
    );
    expect([...phases].sort()).toEqual(
      ['commit', 'fence-prepare', 'fence-query', 'mutation', 'settle', 'stage', 'staged'].sort(),
    );
    const withJournal = networkFault.plan(
      { kind: 'network', toxics: ['down'] },
      await contextOf(`${SERVER_ENGINE}-to-clickhouse`),
    );
    expect(withJournal.map((d) => d.fault.phase)).toEqual(
      expect.arrayContaining(['before-intent', 'state-complete', 'stage']),
    );
  });

  it('only the points the clean trace passes are planned (a replace step is no point of an append run)', async () => {
    const points = [
      'journal.create:before',
      'target.stage:before',
      'target.commit:before',
      'target.commit:after',
    ];
    const traces = { ...NO_TRACES, clean: points.map((point) => ({ point, hit: 1 })) };
    const context = await contextOf(ROUTE, traces);
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
});
