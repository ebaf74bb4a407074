import { isDponeError } from '../../../contracts/errors.ts';
import type { FenceAnswer } from '../../../ports/connector.ts';
import { parseMssqlConnectorUrl } from './mssql-connector-config.ts';
import { fenceUnavailable, readFence } from './mssql-fence.ts';
import type { LoadMssqlDriver } from './mssql-session.ts';
import { MssqlSession } from './mssql-session.ts';

export interface MssqlFenceReaderOptions {
  /** The target's `mssql://user@host:port/database?…` URL (no password in it). */
  readonly url: string;
  readonly password?: string;
  readonly loadDriver?: LoadMssqlDriver;
}

/** Reads an MSSQL target's fence and nothing else. */
export interface MssqlFenceReader extends AsyncDisposable {
  /** committed / not-committed / unknown, as TargetConnector.queryFence; FENCE_UNAVAILABLE when unreachable. */
  queryFence(operationId: string): Promise<FenceAnswer>;
  close(): Promise<void>;
}

/**
 * A read-only fence reader for recovery inspect/plan/apply: unlike MssqlTarget.open it creates no
 * table and sends nothing but the fence SELECT (connecting on the first query).
 */
export function openMssqlFenceReader(options: MssqlFenceReaderOptions): MssqlFenceReader {
  const session = new MssqlSession(
    parseMssqlConnectorUrl(options.url, options.password, 'target.url', 'dpone-recovery'),
    options.loadDriver,
  );
  return {
    async queryFence(operationId: string): Promise<FenceAnswer> {
      try {
        return await session.use((pool) => readFence(pool.request(), operationId));
      } catch (error) {
        if (isDponeError(error)) throw error;
        throw fenceUnavailable(operationId, error);
      }
    },
    close: () => session.close(),
    [Symbol.asyncDispose]: () => session.close(),
  };
}
