import { describe, expect, it } from 'vitest';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';
import { BUILT_IN_ENGINES, ROUTE_ALIASES, TARGET_ALIASES, resolveRouteId, urlEngine } from './route-names.ts';

// Engine-neutral on purpose: this file reads the engines from the table (test/engine-folders.test.ts).
const engines = Object.entries(BUILT_IN_CONNECTORS);

describe('route names, derived from the engines’ registrations', () => {
  it('list the engines in the engine table’s order', () => {
    expect(BUILT_IN_ENGINES).toEqual(Object.keys(BUILT_IN_CONNECTORS));
  });

  it('make each route-alias engine name its own route, and each target-alias engine any source into it', () => {
    const routeAliased = engines.filter(([, e]) => e.naming?.alias === 'route').map(([name]) => name);
    const targetAliased = engines.filter(([, e]) => e.naming?.alias === 'target').map(([name]) => name);
    expect(routeAliased.length + targetAliased.length).toBeGreaterThan(0);
    expect(Object.keys(ROUTE_ALIASES)).toEqual(routeAliased);
    for (const name of routeAliased)
      expect(resolveRouteId(name)).toEqual({ id: `${name}-to-${name}`, source: name, target: name });
    expect(Object.keys(TARGET_ALIASES)).toEqual(targetAliased);
    const [source] = BUILT_IN_ENGINES;
    for (const name of targetAliased) {
      expect(resolveRouteId(name, `${source}://h/db`)?.id).toBe(`${source}-to-${name}`);
      expect(resolveRouteId(name)?.id).toBe(`${name}-to-${name}`);
    }
  });

  it('read a URL’s engine from its scheme: an engine’s name or a scheme it declares, in any case', () => {
    const declared = engines.flatMap(([name, e]) => (e.naming?.schemes ?? []).map((s) => [s, name]));
    expect(declared.length).toBeGreaterThan(0);
    for (const [scheme, name] of declared) {
      expect(urlEngine(`${scheme}://h/db`)).toBe(name);
      expect(urlEngine(` ${scheme!.toUpperCase()}://h/db`)).toBe(name);
    }
    for (const name of BUILT_IN_ENGINES) expect(urlEngine(`${name}://h/db`)).toBe(name);
    expect(urlEngine('acme:x.db')).toBe('acme');
    expect(urlEngine('no scheme')).toBeNull();
    expect(resolveRouteId('acme-to-other')).toEqual({ id: 'acme-to-other', source: 'acme', target: 'other' });
    expect(resolveRouteId('not a route')).toBeNull();
  });
});
