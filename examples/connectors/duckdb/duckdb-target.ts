import type { ConnectorEndpoint, MarkerTargetOptions, TargetConnector, TargetOpenContext } from 'dpone-cert';
import {
  DponeError,
  ERROR_CODES,
  FENCE_TABLE,
  MarkerTarget,
  PlainTarget,
  unsafeMarkerTarget,
} from 'dpone-cert';
import { duckdbPath, withSession } from './duckdb-database.ts';
import { FENCE_DDL, duckdbDialect } from './duckdb-dialect.ts';

/** The fence lives in the target file's main schema: known from the workload alone. */
export const DUCKDB_FENCE_LOCATION = `duckdb:main.${FENCE_TABLE}`;

const TABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkTable(endpoint: ConnectorEndpoint): void {
  if (!TABLE.test(endpoint.table))
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      `${endpoint.field}.table must be a table of the main schema`,
      {
        field: `${endpoint.field}.table`,
      },
    );
}

function markerOptions(endpoint: ConnectorEndpoint, context: TargetOpenContext): MarkerTargetOptions {
  return {
    identity: `duckdb:${endpoint.table}`,
    fenceLocation: DUCKDB_FENCE_LOCATION,
    faults: context.faults,
  };
}

/**
 * Before the first fence call: the fence table exists (created empty, never a fence row; not for
 * plain writes, which have no fence) and the target table exists (a missing one is
 * DPONE_OBJECT_NOT_FOUND naming it, not an unknown outcome).
 */
async function prepareFile(path: string, endpoint: ConnectorEndpoint, fence = true): Promise<void> {
  await withSession(path, false, async (session) => {
    if (fence) await session.run(FENCE_DDL);
    const found = await session.run(
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'main' AND table_name = @table",
      { table: endpoint.table },
    );
    if (Number(found.rows[0]?.n ?? 0) === 0)
      throw new DponeError(
        ERROR_CODES.OBJECT_NOT_FOUND,
        `the DuckDB target table named by ${endpoint.field}.table does not exist`,
        {
          field: `${endpoint.field}.table`,
        },
      );
  });
}

/** The certified DuckDB target: the kernel's transactional marker over the DuckDB dialect. */
export async function openDuckdbTarget(
  endpoint: ConnectorEndpoint,
  context: TargetOpenContext,
): Promise<TargetConnector> {
  checkTable(endpoint);
  const path = duckdbPath(endpoint.url, endpoint.baseDir, endpoint.field);
  if (!context.readOnly) await prepareFile(path, endpoint);
  return new MarkerTarget(
    duckdbDialect(path, endpoint.table, context.readOnly),
    markerOptions(endpoint, context),
  );
}

/** A deliberately broken variant of the catalogue (the kernel builds it), for the sensitivity check. */
export async function openUnsafeDuckdbTarget(
  variant: string,
  endpoint: ConnectorEndpoint,
  context: TargetOpenContext,
): Promise<TargetConnector> {
  checkTable(endpoint);
  const path = duckdbPath(endpoint.url, endpoint.baseDir, endpoint.field);
  await prepareFile(path, endpoint);
  return unsafeMarkerTarget(
    variant,
    async () => duckdbDialect(path, endpoint.table, false),
    markerOptions(endpoint, context),
  );
}

/**
 * The same DuckDB target written WITHOUT a fence (`target.fence: none`, capability none): the
 * kernel's plain writes over the same dialect. It can prove nothing afterwards, so a run that began
 * the mutation ends COMMIT_UNKNOWN for an operator to settle; the certification runs it to show
 * exactly that (and that no replay follows).
 */
export async function openPlainDuckdbTarget(
  endpoint: ConnectorEndpoint,
  context: TargetOpenContext,
): Promise<TargetConnector> {
  checkTable(endpoint);
  const path = duckdbPath(endpoint.url, endpoint.baseDir, endpoint.field);
  if (!context.readOnly) await prepareFile(path, endpoint, false);
  return new PlainTarget(duckdbDialect(path, endpoint.table, context.readOnly), {
    identity: `duckdb:${endpoint.table}`,
    faults: context.faults,
  });
}
