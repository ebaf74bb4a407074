import { DponeError } from '../../src/contracts/errors.ts';
import type { TargetCreateSpec } from '../../src/contracts/workload.ts';
import type { TargetConnector } from '../../src/ports/connector.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import { fenceUnavailable } from '../../src/adapters/connectors/marker-fence/marker-fence.ts';
import type { MarkerTargetOptions } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { MarkerTarget } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { openMarkerTarget } from '../../src/adapters/connectors/marker-fence/open-marker-target.ts';
import { PlainTarget } from '../../src/adapters/connectors/marker-fence/plain-target.ts';
import { parsePostgresUrl } from './postgres-config.ts';
import { postgresDialect } from './postgres-dialect.ts';
import { classifyPostgresError } from './postgres-errors.ts';
import { postgresFence } from './postgres-fence.ts';
import { ensureTargetTables } from './postgres-rows.ts';
import { PostgresSession } from './postgres-session.ts';
import { isPostgresOwnVariant, postgresOwnFlaws } from './postgres-unsafe-variants.ts';

export interface PostgresTargetOptions {
  /** `postgres://user@host:port/db?connect_timeout_ms=&query_timeout_ms=` (password via `password`). */
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** Opt-in: create a missing target table with these column types (else OBJECT_NOT_FOUND). */
  readonly create?: TargetCreateSpec;
  /** Kept for the checker; the target table has no unique key on purpose. */
  readonly naturalKey: readonly string[];
  /** `target.fence_schema`; default the URL's `?schema=`, else `public` (see postgres-fence.ts). */
  readonly fenceSchema?: string;
  readonly faults?: FaultPoints;
  /** Selects a harness-only unsafe variant (DPONE_HARNESS=1 + DPONE_UNSAFE_VARIANT); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** The run's log: why a PostgreSQL source's rows did not take the binary COPY path. */
  readonly note?: (message: string) => void;
}

/**
 * The PostgreSQL route's target. Capability: a transactional commit marker — the fence row turns
 * committed in the same transaction as the data, guarded by the lease epoch (the transaction's
 * first statement, holding the row lock), so a replay or a zombie writes nothing.
 */
export class PostgresTarget extends MarkerTarget {
  /**
   * Connects and creates the fence table when missing (and the target table when `create` opts
   * in); a missing target table is OBJECT_NOT_FOUND, an unreachable server FENCE_UNAVAILABLE. Under DPONE_HARNESS=1, DPONE_UNSAFE_VARIANT selects a broken variant.
   */
  static async open(options: PostgresTargetOptions): Promise<TargetConnector> {
    const env = options.env ?? process.env;
    // The connector's own unsafe variants change the session or the COPY, not the protocol.
    if (isPostgresOwnVariant(env))
      return new PostgresTarget(await openTargetDialect(options), markerOptions(options));
    return openMarkerTarget(
      env,
      () => openTargetDialect(options),
      markerOptions(options),
      (dialect, marker) => new PostgresTarget(dialect, marker),
    );
  }
}

/**
 * The same table written WITHOUT a fence (`target.fence: none`, capability none): no fence table
 * is created or read, and no outcome can be proven.
 */
export async function openPlainPostgresTarget(options: PostgresTargetOptions): Promise<TargetConnector> {
  return new PlainTarget(await openTargetDialect(options, false), {
    identity: `postgres:${options.table}`,
    ...(options.faults ? { faults: options.faults } : {}),
  });
}

function markerOptions(options: PostgresTargetOptions): MarkerTargetOptions {
  return {
    identity: `postgres:${options.table}`,
    fenceLocation: postgresFence(options.url, options.fenceSchema).location,
    ...(options.faults ? { faults: options.faults } : {}),
  };
}

/** Opens the session and the tables; shared with the unsafe variants so they differ only in the protocol. */
async function openTargetDialect(options: PostgresTargetOptions, withFence = true) {
  const fence = postgresFence(options.url, options.fenceSchema);
  const flaws = postgresOwnFlaws(options.env ?? process.env);
  const session = new PostgresSession(
    parsePostgresUrl(options.url, options.password, 'target.url', 'dpone-target'),
    { trustStartupParameters: flaws.trustsStartupParameters === true },
  );
  try {
    await session.use((client) =>
      ensureTargetTables(
        client,
        (c) => session.begin(c, 'read-write'),
        fence,
        options.table,
        options.create,
        withFence,
      ),
    );
  } catch (error) {
    await session.close();
    // A refused login, a missing grant or database is said as such; the rest is a retry.
    const fallback = fenceUnavailable('PostgreSQL', undefined, error);
    throw classifyPostgresError(
      error,
      'target',
      (fields) => new DponeError(fallback.code, fallback.message, fields, { cause: error }),
    );
  }
  return postgresDialect(session, {
    fence,
    table: options.table,
    faults: options.faults ?? NO_FAULTS,
    ...(flaws.unboundedCopy ? { unboundedCopy: true } : {}),
    ...(flaws.trustsStartupParameters ? { binaryCopy: false } : {}),
    ...(options.note ? { note: options.note } : {}),
  });
}
