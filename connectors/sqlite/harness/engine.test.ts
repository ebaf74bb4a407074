import { describe, expect, it } from 'vitest';
import {
  ROUTES,
  harnessRouteId,
  journalEngine,
  loadRoute,
  routeAliases,
  routeIds,
} from '../../../harness/routes/route-registry.ts';

// SQLite's own lines of the harness registry (the engine-neutral ones: harness/routes/route-registry.test.ts).
describe('SQLite in the harness registry: the embedded route and journal', () => {
  it('has its own route, named by its alias', () => {
    expect(routeIds()).toContain('sqlite-to-sqlite');
    expect(routeAliases()).toContain('sqlite');
    expect(harnessRouteId('sqlite')).toBe('sqlite-to-sqlite');
    expect(Object.keys(ROUTES)).not.toContain('sqlite');
  });

  it('its route keeps its own journal (composed routes: in the target engine’s folder)', () => {
    expect(journalEngine('sqlite', 'sqlite')).toBe('sqlite');
  });

  it('its route runs inside Node: no service, no proxy, and it copies its cell state', async () => {
    const embedded = await loadRoute('sqlite');
    expect(embedded).toMatchObject({ defaultProvider: 'embedded', services: [], journal: 'sqlite' });
    expect(embedded.capabilities.proxies).toEqual([]);
    // Only a route whose parts all keep their state in the cell folder copies cell state.
    expect(embedded.copyCellState).toBeTypeOf('function');
  });
});
