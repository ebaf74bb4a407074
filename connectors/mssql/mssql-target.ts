import { isDponeError } from '../../src/contracts/errors.ts';
import type { TargetConnector } from '../../src/ports/connector.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import { fenceUnavailable } from '../../src/adapters/connectors/marker-fence/marker-fence.ts';
import type { MarkerTargetOptions } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { MarkerTarget } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { openMarkerTarget } from '../../src/adapters/connectors/marker-fence/open-marker-target.ts';
import { parseMssqlConnectorUrl } from './mssql-connector-config.ts';
import { mssqlDialect } from './mssql-dialect.ts';
import { mssqlFence } from './mssql-fence.ts';
import { ensureTargetTables } from './mssql-rows.ts';
import type { LoadMssqlDriver } from './mssql-session.ts';
import { MssqlSession } from './mssql-session.ts';

export interface MssqlTargetOptions {
  /** `mssql://user@host:port/database?encrypt=&trustServerCertificate=` (no password in it). */
  readonly url: string;
  /** From the environment variable the workload names; never from the URL. */
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** Kept for the checker; the target table has no unique key on purpose. */
  readonly naturalKey: readonly string[];
  /** `target.fence_schema`, default `dbo` (see mssql-fence.ts). */
  readonly fenceSchema?: string;
  readonly faults?: FaultPoints;
  /** Selects a harness-only unsafe variant (DPONE_HARNESS=1 + DPONE_UNSAFE_VARIANT); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Unit tests hand in a fake of the driver slice; default: the real `mssql` driver. */
  readonly loadDriver?: LoadMssqlDriver;
}

/**
 * The MSSQL route's target. Capability: a transactional commit marker — the fence row turns
 * committed in the same transaction as the data, guarded by the lease epoch (the transaction's
 * first statement, holding the row lock), so a replay under a stale epoch or a zombie writes nothing.
 */
export class MssqlTarget extends MarkerTarget {
  /**
   * Connects and creates the fence and target tables when missing; an unreachable server is
   * FENCE_UNAVAILABLE. Under DPONE_HARNESS=1, DPONE_UNSAFE_VARIANT selects a broken variant.
   */
  static async open(options: MssqlTargetOptions): Promise<TargetConnector> {
    return openMarkerTarget(
      options.env ?? process.env,
      () => openTargetDialect(options),
      markerOptions(options),
      (dialect, marker) => new MssqlTarget(dialect, marker),
    );
  }
}

function markerOptions(options: MssqlTargetOptions): MarkerTargetOptions {
  return {
    identity: `mssql:${options.table}`,
    fenceLocation: mssqlFence(options.fenceSchema).location,
    ...(options.faults ? { faults: options.faults } : {}),
  };
}

/** Opens the session and the tables; shared with the unsafe variants so they differ only in the protocol. */
async function openTargetDialect(options: MssqlTargetOptions) {
  const fence = mssqlFence(options.fenceSchema);
  const session = new MssqlSession(
    parseMssqlConnectorUrl(options.url, options.password, 'target.url', 'dpone-target'),
    options.loadDriver,
  );
  try {
    await session.use((pool) => ensureTargetTables(pool, fence, options.table, options.columns));
  } catch (error) {
    await session.close();
    if (isDponeError(error)) throw error;
    throw fenceUnavailable('MSSQL', undefined, error);
  }
  return mssqlDialect(session, { fence, table: options.table, faults: options.faults ?? NO_FAULTS });
}
