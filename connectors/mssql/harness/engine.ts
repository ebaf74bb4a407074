import type { ConnectorPartsEntry } from '../../../harness/routes/parts.ts';
import { MSSQL_SERVICE } from './env/service.ts';

/**
 * MSSQL, registered with the harness: the entry routes/route-registry.ts CONNECTOR_PARTS holds
 * for it. A source only in the harness (its routes keep the target's journal, or the embedded one);
 * its parts (parts.ts: the seeded source table, its partitions and rows) load only when a route
 * reads from MSSQL.
 */
export const harness: ConnectorPartsEntry = {
  roles: ['source'],
  load: async () => (await import('./parts.ts')).parts,
  service: MSSQL_SERVICE,
};
