import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import type { FenceReader } from '../../src/adapters/connectors/marker-fence/marker-fence-reader.ts';
import { markerFenceReader } from '../../src/adapters/connectors/marker-fence/marker-fence-reader.ts';
import { parseMssqlConnectorUrl } from './mssql-connector-config.ts';
import { mssqlDialect } from './mssql-dialect.ts';
import { mssqlFence } from './mssql-fence.ts';
import type { LoadMssqlDriver } from './mssql-session.ts';
import { MssqlSession } from './mssql-session.ts';

export interface MssqlFenceReaderOptions {
  /** The target's `mssql://user@host:port/database?…` URL (no password in it). */
  readonly url: string;
  readonly password?: string;
  /** `target.fence_schema`, default `dbo`. */
  readonly fenceSchema?: string;
  readonly loadDriver?: LoadMssqlDriver;
}

export type MssqlFenceReader = FenceReader;

/**
 * A read-only fence reader for recovery inspect/plan/apply: unlike MssqlTarget.open it creates no
 * table and sends nothing but the fence SELECT (connecting on the first query).
 */
export function openMssqlFenceReader(options: MssqlFenceReaderOptions): MssqlFenceReader {
  const fence = mssqlFence(options.fenceSchema);
  const session = new MssqlSession(
    parseMssqlConnectorUrl(options.url, options.password, 'target.url', 'dpone-recovery'),
    options.loadDriver,
  );
  return markerFenceReader(mssqlDialect(session, { fence, table: '', faults: NO_FAULTS }));
}
