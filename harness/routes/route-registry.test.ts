import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { runtimeRouteIds } from '../../src/cli/engine-table.ts';
import { routeConnectorVersion } from '../../src/cli/certifications.ts';
import {
  CONNECTOR_PARTS,
  ROUTES,
  harnessRouteId,
  journalEngine,
  loadRoute,
  routeAliases,
  routeIds,
} from './route-registry.ts';
import { loadRouteOrPlugin } from './route-loader.ts';

describe('routes composed from connector parts', () => {
  it('every source part goes with every target part, for engines the runtime has connectors for', () => {
    const sources = Object.keys(CONNECTOR_PARTS).filter((e) => CONNECTOR_PARTS[e]!.roles.includes('source'));
    const targets = Object.keys(CONNECTOR_PARTS).filter((e) => CONNECTOR_PARTS[e]!.roles.includes('target'));
    expect(routeIds()).toHaveLength(sources.length * targets.length);
    for (const id of routeIds()) expect(runtimeRouteIds()).toContain(id);
    expect(routeIds()).toEqual(
      expect.arrayContaining([
        'sqlite-to-sqlite',
        'postgres-to-postgres',
        'sqlite-to-clickhouse',
        'postgres-to-clickhouse',
        'mssql-to-clickhouse',
      ]),
    );
  });

  it('aliases resolve to the full id; an unknown route is bad input naming the field', () => {
    expect(harnessRouteId('sqlite')).toBe('sqlite-to-sqlite');
    expect(harnessRouteId('postgres')).toBe('postgres-to-postgres');
    expect(() => harnessRouteId('oracle-to-clickhouse')).toThrow(/unknown route "oracle-to-clickhouse"/);
    expect(Object.keys(ROUTES)).not.toContain('sqlite');
  });

  it('names the aliases of routes it has, and only those (mssql-to-mssql is no harness route)', async () => {
    expect(routeAliases()).toEqual(['sqlite', 'postgres']);
    expect(() => harnessRouteId('oracle')).toThrow(/; aliases: sqlite, postgres\)$/);
    await expect(loadRouteOrPlugin('postgress', { cwd: tmpdir() })).rejects.toMatchObject({
      message: expect.stringMatching(/; aliases: sqlite, postgres; a plug-in's routes need/),
      fields: { hint: 'did you mean --route postgres?' },
    });
  });

  it('the journal is a server journal the route already has, else the embedded one', () => {
    expect(journalEngine('postgres', 'clickhouse')).toBe('postgres');
    expect(journalEngine('sqlite', 'postgres')).toBe('postgres');
    expect(journalEngine('sqlite', 'clickhouse')).toBe('sqlite');
    expect(journalEngine('mssql', 'clickhouse')).toBe('sqlite');
    expect(journalEngine('sqlite', 'sqlite')).toBe('sqlite');
  });

  it('a composed route carries both connector versions, its parts’ services, variants and capabilities', async () => {
    const pgch = await loadRoute('postgres-to-clickhouse');
    expect(pgch).toMatchObject({
      id: 'postgres-to-clickhouse',
      defaultProvider: 'local',
      services: ['postgres', 'clickhouse', 'toxiproxy'],
      journal: 'postgres',
      connectorVersion: routeConnectorVersion('postgres-to-clickhouse'),
      lossModes: { journal: ['wipe', 'delete', 'rollback', 'fork'], fence: ['drop', 'rename'] },
    });
    expect(pgch.unsafeVariants).toEqual(
      expect.arrayContaining([
        'direct-insert',
        'no-seal',
        'log-only-fence',
        'untagged-staging',
        'guard-epoch-only',
      ]),
    );
    expect(pgch.capabilities.proxies).toEqual(['target', 'journal']);
    expect(pgch.copyCellState).toBeUndefined();
    const embedded = await loadRoute('sqlite');
    expect(embedded).toMatchObject({ defaultProvider: 'embedded', services: [], journal: 'sqlite' });
    expect(embedded.capabilities.proxies).toEqual([]);
    // Only a route whose parts all keep their state in the cell folder copies cell state.
    expect(embedded.copyCellState).toBeTypeOf('function');
    const chEmbedded = await loadRoute('sqlite-to-clickhouse');
    expect(chEmbedded).toMatchObject({ services: ['clickhouse', 'toxiproxy'], journal: 'sqlite' });
    expect(chEmbedded.capabilities.proxies).toEqual(['target']);
    expect(chEmbedded.capabilities.serverKills.journal).toEqual([]);
    expect(chEmbedded.lossModes?.journal).toContain('wal-loss');
  });

  it('a route from SQL Server needs SQL Server, which no local provider has', async () => {
    const route = await loadRoute('mssql-to-clickhouse');
    expect(route.services).toContain('mssql');
  });
});
