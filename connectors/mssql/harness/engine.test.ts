import { describe, expect, it } from 'vitest';
import { componentIds } from '../../../harness/doctor/doctor.test-support.ts';
import { USES } from '../../../harness/doctor/doctor.ts';
import {
  CONNECTOR_PARTS,
  harnessRouteId,
  loadRoute,
  routeAliases,
  routeIds,
} from '../../../harness/routes/route-registry.ts';

// SQL Server's own lines of the harness registry (the engine-neutral ones: harness/routes/route-registry.test.ts).
describe('SQL Server in the harness registry: a source only', () => {
  const targets = Object.keys(CONNECTOR_PARTS).filter((engine) =>
    CONNECTOR_PARTS[engine]!.roles.includes('target'),
  );

  it('has a route into every target, and no route (nor alias) of its own: mssql-to-mssql is no harness route', () => {
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(routeIds()).toContain(`mssql-to-${target}`);
    expect(routeIds()).not.toContain('mssql-to-mssql');
    expect(routeAliases()).not.toContain('mssql');
    expect(() => harnessRouteId('mssql')).toThrow(/unknown route "mssql"/);
  });

  it('a route from SQL Server needs SQL Server, which no local provider has', async () => {
    for (const target of targets) expect((await loadRoute(`mssql-to-${target}`)).services).toContain('mssql');
  });
});

describe('SQL Server in dpone doctor', () => {
  it('lists its live tests’ lane (a URL), starts no server for npm test, and its component after the external line', async () => {
    expect(USES.filter((u) => u.route === 'mssql').map((u) => [u.provider, u.needs.join(' ')])).toEqual([
      ['url', 'node mssql'],
    ]);
    expect(USES.find((u) => u.route === 'npm test')!.needs).not.toContain('mssql');
    const ids = await componentIds();
    expect(ids.slice(ids.indexOf('mssql') - 1, ids.indexOf('mssql') + 2)).toEqual([
      'external',
      'mssql',
      'airflow',
    ]);
  });
});
