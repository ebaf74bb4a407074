import {
  SHARED_UNSAFE_VARIANTS,
  assembleUnsafeCatalogue,
  targetVariantsFor,
} from '../../src/ports/unsafe-variants.ts';
import { requestedUnsafeVariant } from '../../src/test-hooks/index.ts';
import type { PostgresFlaws } from './postgres-variant-catalogue.ts';
import { POSTGRES_UNSAFE_CATALOGUE } from './postgres-variant-catalogue.ts';

/**
 * DELIBERATELY BROKEN PostgreSQL targets for the harness's sensitivity check: the shared
 * catalogue's variants that are really unsafe on a transactional marker (built by
 * ../marker-fence/marker-unsafe-target.ts), and the PostgreSQL connector's own
 * (postgres-variant-catalogue.ts: a session that trusts startup parameters, a COPY awaited without
 * bound, the server's fsync=off) plus the executor flaw only a
 * PostgreSQL lost-commit cell reaches. Each must make the certification FAIL. Reachable only
 * with DPONE_HARNESS=1.
 */
export const POSTGRES_OWN_VARIANTS: readonly string[] = [
  'trusts-startup-parameters',
  'copy-never-gives-up',
  'skips-complete-check',
  // The server's flaw, not the connector's: the harness starts the cell's server with fsync=off
  // (harness/postgres-power-loss.ts); the connector stays the certified one.
  'postgres-fsync-off',
];

export const UNSAFE_POSTGRES_VARIANTS: readonly string[] = [
  ...targetVariantsFor('transactional-commit-marker'),
  ...POSTGRES_OWN_VARIANTS,
];

/** The variants this engine knows: the shared catalogue and its own. */
const KNOWN = assembleUnsafeCatalogue(SHARED_UNSAFE_VARIANTS, [['postgres', POSTGRES_UNSAFE_CATALOGUE]]);

/** The PostgreSQL connector's own flaws the environment asks for (under DPONE_HARNESS=1), else none. */
export function postgresOwnFlaws(env: NodeJS.ProcessEnv): PostgresFlaws {
  const name = requestedUnsafeVariant(env, KNOWN);
  if (name === null || !POSTGRES_OWN_VARIANTS.includes(name)) return {};
  // The own variants of the shared catalogue (skips-complete-check) are the executor's: no target flaw.
  return Object.hasOwn(POSTGRES_UNSAFE_CATALOGUE, name) ? POSTGRES_UNSAFE_CATALOGUE[name]!.flaws : {};
}

/** True when the requested variant is one the connector implements itself (not the marker kernel). */
export function isPostgresOwnVariant(env: NodeJS.ProcessEnv): boolean {
  const name = requestedUnsafeVariant(env, KNOWN);
  return name !== null && POSTGRES_OWN_VARIANTS.includes(name);
}
