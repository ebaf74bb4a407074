import type { ConnectorEndpoint, MarkerTargetOptions, TargetConnector, TargetOpenContext } from 'dpone-cert';
import {
  DponeError,
  ERROR_CODES,
  FENCE_TABLE,
  MarkerTarget,
  PlainTarget,
  unsafeMarkerTarget,
} from 'dpone-cert';
import type { MariadbAddress } from './mariadb-database.ts';
import { mariadbAddress, withSession } from './mariadb-database.ts';
import { FENCE_DDL, mariadbDialect } from './mariadb-dialect.ts';

/** The fence lives in the target's database: known from the workload alone. */
export const MARIADB_FENCE_LOCATION = `mariadb:${FENCE_TABLE}`;

const TABLE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function addressOf(endpoint: ConnectorEndpoint): MariadbAddress {
  if (!TABLE.test(endpoint.table))
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      `${endpoint.field}.table must be a table of the URL's database`,
      {
        field: `${endpoint.field}.table`,
      },
    );
  return mariadbAddress(endpoint.url, endpoint.field, endpoint.password);
}

function markerOptions(endpoint: ConnectorEndpoint, context: TargetOpenContext): MarkerTargetOptions {
  return {
    identity: `mariadb:${endpoint.table}`,
    fenceLocation: MARIADB_FENCE_LOCATION,
    faults: context.faults,
  };
}

/**
 * Before the first fence call: the fence table exists (created empty, never a fence row; not for
 * plain writes, which have no fence) and the target table exists (a missing one is
 * DPONE_OBJECT_NOT_FOUND naming it, not an unknown outcome).
 */
async function prepareDatabase(
  address: MariadbAddress,
  endpoint: ConnectorEndpoint,
  fence = true,
): Promise<void> {
  await withSession(address, async (session) => {
    if (fence) await session.runValues(FENCE_DDL);
    const found = await session.runValues(
      'SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?',
      [endpoint.table],
    );
    if (Number(found.rows[0]?.n ?? 0) === 0)
      throw new DponeError(
        ERROR_CODES.OBJECT_NOT_FOUND,
        `the MariaDB target table named by ${endpoint.field}.table does not exist`,
        { field: `${endpoint.field}.table` },
      );
  });
}

/** The certified MariaDB target: the kernel's transactional marker over the MariaDB dialect. */
export async function openMariadbTarget(
  endpoint: ConnectorEndpoint,
  context: TargetOpenContext,
): Promise<TargetConnector> {
  const address = addressOf(endpoint);
  if (!context.readOnly) await prepareDatabase(address, endpoint);
  return new MarkerTarget(
    mariadbDialect(address, endpoint.table, context.readOnly),
    markerOptions(endpoint, context),
  );
}

/** A deliberately broken variant of the catalogue (the kernel builds it), for the sensitivity check. */
export async function openUnsafeMariadbTarget(
  variant: string,
  endpoint: ConnectorEndpoint,
  context: TargetOpenContext,
): Promise<TargetConnector> {
  const address = addressOf(endpoint);
  await prepareDatabase(address, endpoint);
  return unsafeMarkerTarget(
    variant,
    async () => mariadbDialect(address, endpoint.table, false),
    markerOptions(endpoint, context),
  );
}

/**
 * The same MariaDB target written WITHOUT a fence (`target.fence: none`, capability none): the
 * kernel's plain writes over the same dialect. It proves nothing afterwards, so a run that began
 * the mutation ends COMMIT_UNKNOWN for an operator to settle.
 */
export async function openPlainMariadbTarget(
  endpoint: ConnectorEndpoint,
  context: TargetOpenContext,
): Promise<TargetConnector> {
  const address = addressOf(endpoint);
  if (!context.readOnly) await prepareDatabase(address, endpoint, false);
  return new PlainTarget(mariadbDialect(address, endpoint.table, context.readOnly), {
    identity: `mariadb:${endpoint.table}`,
    faults: context.faults,
  });
}
