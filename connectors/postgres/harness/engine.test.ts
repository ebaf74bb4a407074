import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { doctorComponents } from '../../../harness/doctor/doctor.test-support.ts';
import { USES } from '../../../harness/doctor/doctor.ts';
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

describe('PostgreSQL in dpone doctor', () => {
  it('lists its own route on each provider, the pooler on the local one, and its server among npm test’s', () => {
    expect(
      USES.filter((u) => u.route === 'postgres-to-postgres').map((u) => [u.provider, u.needs.join(' ')]),
    ).toEqual([
      ['local', 'node postgres postgres-user toxiproxy pgbouncer'],
      ['docker', 'node docker'],
      ['external', 'node external'],
    ]);
    expect(USES.find((u) => u.route === 'postgres-to-postgres')!.command).toBe(
      'dpone certify run --route postgres --provider local',
    );
    expect(USES.find((u) => u.route === 'npm test')!.needs.slice(0, 4)).toEqual([
      'node',
      'postgres',
      'postgres-user',
      'toxiproxy',
    ]);
  });

  it('its components come after the embedded engine’s, its pooler right after Toxiproxy; it is the external line’s server', async () => {
    const password = 'doctor-must-not-print-this-7731';
    const components = await doctorComponents({ DPONE_PG_PASSWORD: password });
    const ids = components.map((c) => c.id);
    const at = ids.indexOf('postgres');
    expect(ids.slice(at - 1, at + 4)).toEqual([
      EMBEDDED_ENGINE,
      'postgres',
      'postgres-user',
      'toxiproxy',
      'pgbouncer',
    ]);
    expect(JSON.stringify(components)).not.toContain(password);
    // The external provider's line: its variables (the password set here, so only the others are
    // missing) and Toxiproxy's.
    expect(components.find((c) => c.id === 'external')).toMatchObject({
      name: 'your own PostgreSQL + Toxiproxy',
      present: false,
      detail: expect.stringMatching(/^not set: DPONE_PG_URL, \w+$/),
      install: expect.stringMatching(
        /^export DPONE_PG_URL=postgres:\/\/user@host:5432\/db DPONE_PG_PASSWORD=… \w+=http:\/\/host:8474$/,
      ),
    });
  });
});
