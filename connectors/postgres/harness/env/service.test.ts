import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { INSTALL, missingComponent } from '../../../../harness/env/install-hints.ts';
import { PGBOUNCER_MISSING } from './pgbouncer.ts';
import { POSTGRES_SERVICE } from './service.ts';

describe('PostgreSQL service entry: what doctor and the reports say is missing', () => {
  it('names PgBouncer for a pooler lane, with the hint from this entry', () => {
    expect(missingComponent(PGBOUNCER_MISSING)).toBe('pgbouncer');
    expect(missingComponent('initdb failed')).toBe('postgres');
    expect(INSTALL.postgres).toBe(POSTGRES_SERVICE.install.hints.postgres);
    expect(INSTALL.pgbouncer).toBe(POSTGRES_SERVICE.install.hints.pgbouncer);
  });

  it('names PostgreSQL, not SQL Server, for missing server binaries (its words contain "SQL server")', () => {
    // findLocalBinaries' line when the binaries are missing (this machine has them, so it is quoted).
    const missing =
      'PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in /usr/lib/postgresql/*/bin or on PATH';
    expect(readFileSync(new URL('./local-binaries.ts', import.meta.url), 'utf8')).toContain(missing);
    expect(missingComponent(`local provider: ${missing}`)).toBe('postgres');
    // With Toxiproxy missing too, Toxiproxy's words rank first (SQL Server's did, before).
    expect(missingComponent(`local provider: ${missing}; Toxiproxy server not found`)).toBe('toxiproxy');
  });

  it('lets the external provider win a reason that names its variables', () => {
    expect(missingComponent('external provider: set DPONE_PG_URL, DPONE_PG_PASSWORD')).toBe('external');
  });
});
