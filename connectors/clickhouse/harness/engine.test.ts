import { describe, expect, it } from 'vitest';
import { componentIds } from '../../../harness/doctor/doctor.test-support.ts';
import { USES } from '../../../harness/doctor/doctor.ts';
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

describe('ClickHouse in dpone doctor: certified in the routes into it', () => {
  /** The components an engine's entry says a route with it at one end needs on the local provider. */
  const local = (engine: string) => {
    const entry = CONNECTOR_PARTS[engine]!;
    return (entry.service ?? entry.embedded)!.doctor.uses.providers.local ?? [];
  };

  it('lists the route from each source on the first provider both ends run, needing what both ends need', async () => {
    expect(
      USES.filter((u) => u.route.endsWith('-to-clickhouse')).map((u) => [
        u.route,
        u.provider,
        u.needs.join(' '),
      ]),
    ).toEqual([
      [
        `${EMBEDDED_ENGINE}-to-clickhouse`,
        'local',
        ['node', ...local(EMBEDDED_ENGINE), 'clickhouse', 'toxiproxy'].join(' '),
      ],
      [
        `${journaling}-to-clickhouse`,
        'local',
        ['node', ...local(journaling), 'clickhouse', 'toxiproxy'].join(' '),
      ],
      // The first provider both ends run: this source has no local server.
      [`${plain}-to-clickhouse`, 'docker', 'node docker'],
    ]);
    expect(local(plain)).toEqual([]);
    expect(USES.find((u) => u.route === `${journaling}-to-clickhouse`)!.command).toBe(
      `dpone certify run --route ${journaling}-to-clickhouse --provider local`,
    );
    // The certified ones on their default provider.
    for (const source of [EMBEDDED_ENGINE, journaling]) {
      const route = await loadRoute(`${source}-to-clickhouse`);
      expect(USES.some((u) => u.route === route.id && u.provider === route.defaultProvider)).toBe(true);
    }
  });

  it('its server is the last npm test starts, before Chromium; its component stands after Toxiproxy’s, before Chromium', async () => {
    expect(USES.find((u) => u.route === 'npm test')!.needs.slice(-2)).toEqual(['clickhouse', 'chromium']);
    const ids = await componentIds();
    expect(ids.indexOf('clickhouse')).toBeGreaterThan(ids.indexOf('toxiproxy'));
    expect(ids[ids.indexOf('clickhouse') + 1]).toBe('chromium');
  });
});
