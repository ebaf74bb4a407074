import type { ConnectorPartsEntry } from '../../../harness/routes/parts.ts';
import { SQLITE_EMBEDDED } from './env/embedded.ts';
import { powerLossItem, powerLossTargetItem } from './gate/power-loss-item.ts';
import { fullDiskItem, journalCorruptionItem, readOnlyDiskItem } from './gate/storage-items.ts';

/**
 * SQLite, registered with the harness: the entry routes/route-registry.ts CONNECTOR_PARTS holds
 * for it. Source, target and journal: the embedded engine's parts (parts.ts: seeded database
 * files in the cell folder, the target's inspector, the cell's SQLite journal file and the loss
 * and storage faults' file operations on it) load only when a route uses SQLite; a route with no
 * server journal keeps this one (embeddedJournal: route-registry.ts journalEngine).
 */
export const harness: ConnectorPartsEntry = {
  roles: ['source', 'target', 'journal'],
  embeddedJournal: true,
  embedded: SQLITE_EMBEDDED,
  load: async () => (await import('./parts.ts')).parts,
  // Its gate lines (gate/): the storage lines of a route whose target and journal are its files.
  acceptance: {
    storage: [powerLossItem, powerLossTargetItem, fullDiskItem, readOnlyDiskItem, journalCorruptionItem],
  },
};
