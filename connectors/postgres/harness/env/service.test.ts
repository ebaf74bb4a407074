import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StartedEnvironment } from '../../../../harness/env/environment.ts';
import { startExternal } from '../../../../harness/env/external/external-provider.ts';
import {
  ENGINE_SERVICES,
  INSTALL,
  missingComponent,
  ownsServerFor,
  poolerMissing,
} from '../../../../harness/routes/engine-services.ts';
import { lostCommitFault } from '../../../../harness/faults/lost-commit-fault.ts';
import { serverKillFault } from '../../../../harness/faults/server-fault.ts';
import { stallFault } from '../../../../harness/faults/stall-fault.ts';
import { PGBOUNCER_MISSING } from './pgbouncer.ts';
import type { PostgresService } from './postgres-services.ts';
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

describe('PostgreSQL service entry: the servers of its own it offers the server faults', () => {
  // Stand-ins for a started service: only whether it offers dedicated clusters matters here.
  const owning = {
    dedicated: () => Promise.reject(new Error('not started here')),
  } as unknown as PostgresService;
  const sharing = {} as unknown as PostgresService;
  const environment = (provider: string, postgres: PostgresService) =>
    ({ provider, databases: {}, toxiproxy: null, services: { postgres } }) as unknown as StartedEnvironment;

  it('serves server-kill, stall and lost-commit cells where the provider owns clusters, none elsewhere', () => {
    for (const fault of ['server-kill', 'stall', 'lost-commit'] as const) {
      expect(ownsServerFor({ postgres: owning }, fault), fault).toBe(true);
      expect(ownsServerFor({ postgres: sharing }, fault), fault).toBe(false);
    }
    const local = environment('local', owning);
    expect(serverKillFault.unavailableIn!(local)).toBeNull();
    expect(stallFault.unavailableIn!(local)).toBeNull();
    expect(lostCommitFault.unavailableIn!(local)).toBeNull();
    const external = environment('external', sharing);
    expect(serverKillFault.unavailableIn!(external)).toMatch(
      /^provider external owns no server it may SIGKILL/,
    );
    expect(stallFault.unavailableIn!(external)).toMatch(/^provider external owns no server whose backends/);
    expect(lostCommitFault.unavailableIn!(external)).toMatch(
      /^provider external owns no server it can fail over/,
    );
  });
});

describe('PostgreSQL service entry: the pooler lane', () => {
  it('offers PgBouncer where the provider started one, and says why not elsewhere', () => {
    const pooled = {
      pooler: () => Promise.reject(new Error('not started here')),
    } as unknown as PostgresService;
    expect(poolerMissing({ postgres: pooled }, 'local')).toBeNull();
    const noBinary = { poolerMissing: PGBOUNCER_MISSING } as unknown as PostgresService;
    expect(poolerMissing({ postgres: noBinary }, 'local')).toBe(PGBOUNCER_MISSING);
    expect(poolerMissing({ postgres: {} as unknown as PostgresService }, 'docker')).toBe(
      'this provider (docker) starts no PgBouncer: the pooler lane cannot run',
    );
    // A route with no PostgreSQL at all: the same reason (its pooler lane cannot run anywhere).
    expect(poolerMissing({}, 'embedded')).toBe(
      'this provider (embedded) starts no PgBouncer: the pooler lane cannot run',
    );
  });
});

describe('PostgreSQL service entry: the external provider', () => {
  it('is UNVERIFIED with the variables to set when none are given', async () => {
    const result = await startExternal(ENGINE_SERVICES, ['postgres', 'toxiproxy'], {});
    expect(result).toEqual({ status: 'unverified', reason: expect.stringContaining('DPONE_PG_URL') });
  });

  it('refuses a password inside the URL without echoing it', async () => {
    // PostgreSQL alone: with Toxiproxy asked too, its (unreachable) URL is checked first and the
    // refusal is never reached.
    const result = await startExternal(ENGINE_SERVICES, ['postgres'], {
      DPONE_PG_URL: 'postgres://u:s3cret@db.example:5432/x',
      DPONE_PG_PASSWORD: 'other',
    });
    expect(result).toEqual({
      status: 'unverified',
      reason: 'external provider: put the password in DPONE_PG_PASSWORD, not in DPONE_PG_URL',
    });
    expect(JSON.stringify(result)).not.toContain('s3cret');
  });
});
