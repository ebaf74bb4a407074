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

/** Where recovery finds a PostgreSQL target's fence: its URL, password and fence schema. */
export interface RecoveryTarget {
  readonly url: string;
  readonly password?: string;
  readonly fenceSchema?: string;
}

/** The target's fence dialect for recovery: no target table, no faults; a new session of its own. */
function recoveryDialect(target: RecoveryTarget, readOnly: boolean) {
  const fence = postgresFence(target.url, target.fenceSchema);
  const url = parsePostgresUrl(target.url, target.password, 'target.url', 'dpone-recovery');
  return postgresDialect(new PostgresSession(url), {
    fence,
    table: '',
    faults: NO_FAULTS,
    ...(readOnly ? { readOnly } : {}),
  });
}

/**
 * A read-only reader of a PostgreSQL target's fence for recovery inspect/plan/apply: unlike
 * PostgresTarget.open it creates no table, and it reads inside a READ ONLY transaction.
 */
export function openPostgresFenceReader(target: RecoveryTarget): FenceReader {
  return markerFenceReader(recoveryDialect(target, true));
}

/** The fence of a PostgreSQL target for recovery apply: reads it and raises its epoch; creates no table. */
export function openPostgresFenceRaiser(target: RecoveryTarget): FenceRaiser {
  return markerFenceRaiser(recoveryDialect(target, false));
}
