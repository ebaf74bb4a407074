import type { ConnectorPartsEntry } from '../../../harness/routes/parts.ts';
import { POSTGRES_SERVICE } from './env/service.ts';
import {
  fullDiskServerItem,
  journalCorruptionServerItem,
  lostCommitItem,
  poolerItem,
  powerLossServerItem,
  stallItem,
} from './gate/postgres-items.ts';

/**
 * PostgreSQL, registered with the harness: the entry routes/route-registry.ts CONNECTOR_PARTS
 * holds for it. Source, target and journal: a route that has a PostgreSQL server keeps its journal
 * there; its parts (parts.ts: the server places, the seeded source schema, the target, its
 * inspector, seal and unsafe variants, the journal and its loss operations) load only when a
 * route uses PostgreSQL.
 */
export const harness: ConnectorPartsEntry = {
  roles: ['source', 'target', 'journal'],
  load: async () => (await import('./parts.ts')).parts,
  service: POSTGRES_SERVICE,
  // Its gate lines (gate/): the pooler, failover and stall lines, then the server's storage lines.
  acceptance: {
    route: [poolerItem, lostCommitItem, stallItem],
    storage: [powerLossServerItem, fullDiskServerItem, journalCorruptionServerItem],
  },
};
