import { describe, expect, it } from 'vitest';
import { routeConnectorVersion } from '../../../src/cli/certifications.ts';
import {
  CONNECTOR_PARTS,
  EMBEDDED_ENGINE,
  journalEngine,
  loadRoute,
  routeIds,
} from '../../../harness/routes/route-registry.ts';

// ClickHouse's own lines of the harness registry: the routes into it (a staging target). Their
// sources are reached through the registry by what they play, not by name; the engine-neutral
// lines are in harness/routes/route-registry.test.ts.
const sources = Object.keys(CONNECTOR_PARTS).filter((engine) =>
  CONNECTOR_PARTS[engine]!.roles.includes('source'),
);
const servers = sources.filter((engine) => CONNECTOR_PARTS[engine]!.service !== undefined);
/** The server source that keeps a journal of its own. */
const journaling = servers.find((engine) => CONNECTOR_PARTS[engine]!.roles.includes('journal'))!;
/** A server source that keeps none. */
const plain = servers.find((engine) => !CONNECTOR_PARTS[engine]!.roles.includes('journal'))!;

describe('ClickHouse in the harness registry: a target only, from every source', () => {
  it('has a route from every source, and none from itself', () => {
    expect(CONNECTOR_PARTS.clickhouse!.roles).toEqual(['target']);
    for (const source of sources) expect(routeIds()).toContain(`${source}-to-clickhouse`);
    expect(routeIds()).not.toContain('clickhouse-to-clickhouse');
  });

  it('keeps no journal: a server source’s own, else the embedded one', () => {
    expect([journaling, plain, EMBEDDED_ENGINE].every(Boolean)).toBe(true);
    expect(journalEngine(journaling, 'clickhouse')).toBe(journaling);
    expect(journalEngine(EMBEDDED_ENGINE, 'clickhouse')).toBe(EMBEDDED_ENGINE);
    expect(journalEngine(plain, 'clickhouse')).toBe(EMBEDDED_ENGINE);
  });

  it('a composed route carries both connector versions, its parts’ services, variants and capabilities', async () => {
    const id = `${journaling}-to-clickhouse`;
    const fromServer = await loadRoute(id);
    expect(fromServer).toMatchObject({
      id,
      defaultProvider: 'local',
      services: [journaling, 'clickhouse', 'toxiproxy'],
      journal: journaling,
      connectorVersion: routeConnectorVersion(id),
      lossModes: { journal: ['wipe', 'delete', 'rollback', 'fork'], fence: ['drop', 'rename'] },
    });
    expect(fromServer.unsafeVariants).toEqual(
      expect.arrayContaining([
        'direct-insert',
        'no-seal',
        'log-only-fence',
        'untagged-staging',
        'guard-epoch-only',
      ]),
    );
    expect(fromServer.capabilities.proxies).toEqual(['target', 'journal']);
    expect(fromServer.copyCellState).toBeUndefined();
    const fromEmbedded = await loadRoute(`${EMBEDDED_ENGINE}-to-clickhouse`);
    expect(fromEmbedded).toMatchObject({ services: ['clickhouse', 'toxiproxy'], journal: EMBEDDED_ENGINE });
    expect(fromEmbedded.capabilities.proxies).toEqual(['target']);
    expect(fromEmbedded.capabilities.serverKills.journal).toEqual([]);
    expect(fromEmbedded.lossModes?.journal).toContain('wal-loss');
  });
});
