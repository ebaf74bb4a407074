import type {
  FenceRaiser,
  FenceReader,
} from '../../src/adapters/connectors/marker-fence/marker-fence-reader.ts';
import {
  markerFenceRaiser,
  markerFenceReader,
} from '../../src/adapters/connectors/marker-fence/marker-fence-reader.ts';
import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import { parsePostgresUrl } from './postgres-config.ts';
import { postgresDialect } from './postgres-dialect.ts';
import { postgresFence } from './postgres-fence.ts';
import { PostgresSession } from './postgres-session.ts';

/**
 * A read-only reader of a PostgreSQL target's fence for recovery inspect/plan/apply: unlike
 * PostgresTarget.open it creates no table, and it reads inside a READ ONLY transaction.
 */
export function openPostgresFenceReader(
  url: string,
  password: string | undefined,
  fenceSchema: string | undefined,
): FenceReader {
  const fence = postgresFence(url, fenceSchema);
  const session = new PostgresSession(parsePostgresUrl(url, password, 'target.url', 'dpone-recovery'));
  return markerFenceReader(postgresDialect(session, { fence, table: '', faults: NO_FAULTS, readOnly: true }));
}

/** The fence of a PostgreSQL target for recovery apply: reads it and raises its epoch; creates no table. */
export function openPostgresFenceRaiser(
  url: string,
  password: string | undefined,
  fenceSchema: string | undefined,
): FenceRaiser {
  const fence = postgresFence(url, fenceSchema);
  const session = new PostgresSession(parsePostgresUrl(url, password, 'target.url', 'dpone-recovery'));
  return markerFenceRaiser(postgresDialect(session, { fence, table: '', faults: NO_FAULTS }));
}
