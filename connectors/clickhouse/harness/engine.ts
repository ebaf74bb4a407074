import type { ConnectorPartsEntry } from '../../../harness/routes/parts.ts';
import { CLICKHOUSE_SERVICE } from './env/service.ts';

/**
 * ClickHouse, registered with the harness: the entry routes/route-registry.ts CONNECTOR_PARTS
 * holds for it. A target only (no source part, no journal: its routes keep the source's or the
 * embedded journal); its parts (parts.ts: the server, inspector, fence operations, seal and unsafe
 * variants) load only when a route uses ClickHouse.
 */
export const harness: ConnectorPartsEntry = {
  roles: ['target'],
  load: async () => (await import('./parts.ts')).parts,
  service: CLICKHOUSE_SERVICE,
};
