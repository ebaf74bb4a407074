import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  EMBEDDED_ENGINE,
  harnessRouteId,
  journalEngine,
  routeAliases,
  routeIds,
} from '../../../harness/routes/route-registry.ts';
import { loadRouteOrPlugin } from '../../../harness/routes/route-loader.ts';

// PostgreSQL's own lines of the harness registry (the engine-neutral ones: harness/routes/route-registry.test.ts;
// a route from PostgreSQL into another target: in that target's folder).
describe('PostgreSQL in the harness registry', () => {
  it('has its own route, named by its alias; a typo of the alias is answered with it', async () => {
    expect(routeIds()).toContain('postgres-to-postgres');
    expect(routeAliases()).toContain('postgres');
    expect(harnessRouteId('postgres')).toBe('postgres-to-postgres');
    await expect(loadRouteOrPlugin('postgress', { cwd: tmpdir() })).rejects.toMatchObject({
      message: expect.stringMatching(/; aliases: [\w, ]*\bpostgres\b[\w, ]*; a plug-in's routes need/),
      fields: { hint: 'did you mean --route postgres?' },
    });
  });

  it('is the journal of a route into it, whatever the source', () => {
    expect(journalEngine(EMBEDDED_ENGINE, 'postgres')).toBe('postgres');
    expect(journalEngine('postgres', 'postgres')).toBe('postgres');
  });
});
