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

  it('lets the external provider win a reason that names its variables', () => {
    expect(missingComponent('external provider: set DPONE_PG_URL, DPONE_PG_PASSWORD')).toBe('external');
  });
});
