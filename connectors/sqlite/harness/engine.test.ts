import { describe, expect, it } from 'vitest';
import type { Component } from '../../../harness/doctor/doctor-probes.ts';
import { componentIds } from '../../../harness/doctor/doctor.test-support.ts';
import { DEFAULT_USE, USES, assess, renderDoctor } from '../../../harness/doctor/doctor.ts';
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

describe('SQLite in dpone doctor: the default route', () => {
  function present(ids: readonly Component['id'][]): Component[] {
    const all: Component['id'][] = ['node', 'sqlite', 'toxiproxy', 'docker'];
    return all.map((id) => ({
      id,
      name: id,
      present: ids.includes(id),
      detail: '',
      install: `install ${id}`,
    }));
  }

  it('its own route is the default use, on the embedded provider: Node and node:sqlite, nothing of npm test', async () => {
    expect(USES.map((u) => [u.route, u.provider, u.needs.join(' ')])[0]).toEqual([
      'sqlite-to-sqlite',
      'embedded',
      'node sqlite',
    ]);
    expect(DEFAULT_USE).toMatchObject({ route: 'sqlite-to-sqlite', command: 'npm run certify' });
    expect(USES.find((u) => u.route === 'npm test')!.needs).not.toContain('sqlite');
    // Its component right after Node's.
    const ids = await componentIds();
    expect(ids.slice(0, 2)).toEqual(['node', 'sqlite']);
  });

  it('the default route is not ready without a supported Node: the CLI then exits 27', () => {
    const report = assess(present(['toxiproxy', 'docker']));
    expect(report.default_ready).toBe(false);
    expect(report.uses[0]!.missing).toEqual(['node', 'sqlite']);
    expect(renderDoctor(report)).toContain('cannot run here');
    expect(assess(present(['node', 'sqlite'])).default_ready).toBe(true);
  });
});
