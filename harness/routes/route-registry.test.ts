import { describe, expect, it } from 'vitest';
import { runtimeRouteIds } from '../../src/cli/engine-table.ts';
import { ROUTE_ALIASES } from '../../src/cli/route-names.ts';
import {
  CONNECTOR_PARTS,
  ROUTES,
  SERVICE_ORDER,
  harnessRouteId,
  loadRoute,
  routeAliases,
  routeIds,
} from './route-registry.ts';

// Engine-neutral on purpose (no engine is named outside its folder): each engine's own routes,
// aliases, journals and composed routes are asserted in its folder (connectors/<engine>/harness/
// engine.test.ts); a plug-in's routes are tested the same way (examples/connectors/*).
const playing = (role: 'source' | 'target') =>
  Object.keys(CONNECTOR_PARTS).filter((engine) => CONNECTOR_PARTS[engine]!.roles.includes(role));

describe('routes composed from connector parts', () => {
  it('every source part goes with every target part, for engines the runtime has connectors for', () => {
    const product = playing('source').flatMap((source) =>
      playing('target').map((target) => `${source}-to-${target}`),
    );
    expect(routeIds()).toHaveLength(playing('source').length * playing('target').length);
    expect([...routeIds()].sort()).toEqual([...product].sort());
    for (const id of routeIds()) expect(runtimeRouteIds()).toContain(id);
  });

  it('an unknown route is bad input naming the field; an alias is no route id of its own', () => {
    const unknown = `oracle-to-${playing('target')[0]}`;
    expect(() => harnessRouteId(unknown)).toThrow(`unknown route "${unknown}"`);
    expect(() => harnessRouteId('oracle-to-x', '--only')).toThrow(
      expect.objectContaining({ fields: expect.objectContaining({ field: '--only' }) }),
    );
    for (const alias of routeAliases()) expect(Object.keys(ROUTES)).not.toContain(alias);
  });

  it('names the aliases of routes it has, and only those, each resolving to its full id', () => {
    expect(routeAliases().length).toBeGreaterThan(0);
    for (const alias of Object.keys(ROUTE_ALIASES)) {
      const has = routeIds().includes(ROUTE_ALIASES[alias]!);
      expect(routeAliases().includes(alias), alias).toBe(has);
      if (has) expect(harnessRouteId(alias)).toBe(ROUTE_ALIASES[alias]);
    }
    expect(() => harnessRouteId('oracle')).toThrow(`; aliases: ${routeAliases().join(', ')})`);
  });

  it('every route loads, with its id, its services in the registry order and a journal of the registry', async () => {
    for (const id of routeIds()) {
      const route = await loadRoute(id);
      expect(route.id).toBe(id);
      expect(route.services).toEqual(SERVICE_ORDER.filter((service) => route.services.includes(service)));
      expect(CONNECTOR_PARTS[route.journal]!.roles).toContain('journal');
    }
  });
});
