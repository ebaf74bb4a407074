import type { TargetFlaws, UnsafeVariant } from '../../src/ports/unsafe-variants.ts';

/** The PostgreSQL connector's own target flaws, beyond the shared ones (only this folder reads them). */
export interface PostgresFlaws extends TargetFlaws {
  /**
   * Session settings (DateStyle, extra_float_digits, TimeZone, timeouts) go as startup parameters,
   * trusted, never SET LOCAL nor read back (a pooler drops them silently).
   */
  readonly trustsStartupParameters?: boolean;
  /** The end of a COPY is awaited without bound (a stalled server hangs the run). */
  readonly unboundedCopy?: boolean;
}

/**
 * PostgreSQL's own unsafe variants, beyond the shared catalogue (src/ports/unsafe-variants.ts): its
 * session's and its COPY's flaws, and its server's fsync=off. Registered through the engine's entry
 * (engine.ts `unsafeCatalogue`), assembled with the shared ones and the other engines' at the
 * composition root (src/cli/unsafe-catalogue.ts). Data only, so the registration loads nothing else.
 */
export const POSTGRES_UNSAFE_CATALOGUE: Readonly<Record<string, UnsafeVariant<PostgresFlaws>>> = {
  // Offered by this connector alone (postgres-unsafe-variants.ts; unsafeOn stays empty so no
  // other route of the capability is certified against a flaw it cannot have).
  'trusts-startup-parameters': {
    flaws: { trustsStartupParameters: true },
    description:
      'session settings go as startup parameters and are trusted: behind PgBouncer (ignore_startup_parameters) ' +
      'they never reach the server, and a source role with DateStyle SQL, DMY and extra_float_digits 0 moves ' +
      'days and cuts floats without any error; only per-value parity through the pooler lane shows it',
    unsafeOn: [],
    caughtBy: 'cells',
  },
  'copy-never-gives-up': {
    flaws: { unboundedCopy: true },
    description:
      'the end of a COPY is awaited without bound: a stalled target backend (SIGSTOP, a proxy that stops ' +
      'answering) hangs the run until it resumes, the lease long expired; only a stall cell with a time bound shows it',
    unsafeOn: [],
    caughtBy: 'cells',
  },
  // Offered by this target alone (postgres-unsafe-variants.ts): the server's setting, not the connector's.
  'postgres-fsync-off': {
    flaws: {},
    server: { neverSyncs: true },
    description:
      'the target’s PostgreSQL server runs with fsync=off: a COMMIT (the rows, the fence’s marker, the journal ' +
      'on that server) is acknowledged before it is on disk, and a power cut takes back what the killed run was ' +
      'told had committed; only a power-loss cell under the server’s data directory (a filesystem that drops ' +
      'what was not synced) shows it',
    unsafeOn: [],
    caughtBy: 'cells',
    kinds: ['power-loss'],
  },
};
