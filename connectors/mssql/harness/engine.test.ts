import { describe, expect, it } from 'vitest';
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
