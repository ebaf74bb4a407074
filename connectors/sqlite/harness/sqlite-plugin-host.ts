import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { EmbeddedHost } from '../../../harness/routes/parts.ts';
import type { JournalLossMode } from '../../../harness/routes/route.ts';
import { sqliteSourceRows } from './inspectors/sqlite-source-rows.ts';
import { sqliteDump } from './sqlite-dump.ts';
import { openCellJournal, sqliteJournalOperations } from './sqlite-loss.ts';
import { ofDatabase, sealSqliteFile } from './sqlite-seal.ts';

/**
 * What a plug-in route (`sqlite-to-<plug-in>`) borrows from SQLite, the embedded engine: a seeded
 * `source.db` in the cell folder, the cell's `journal.db` journal with its loss operations, and
 * the dump of the embedded cell's files its fingerprint compares (harness/routes/plugin-route.ts).
 */
export function sqlitePluginHost(
  files: { readonly source: string; readonly target: string; readonly journal: string },
  lossModes: readonly JournalLossMode[],
): EmbeddedHost {
  const sourceUrl = `sqlite:${files.source}`;
  const names = [files.source, files.target, files.journal];
  return {
    engine: 'sqlite',
    label: 'SQLite',
    source: {
      url: sourceUrl,
      write(cellDir, table, rows) {
        const db = new DatabaseSync(join(cellDir, files.source));
        try {
          const columnNames = table.columns.map((column) => column.name);
          const columns = table.columns.map((column) => `${column.name} ${column.type.toUpperCase()}`);
          db.exec(`CREATE TABLE ${table.name} (${columns.join(', ')})`);
          const insert = db.prepare(
            `INSERT INTO ${table.name} (${columnNames.join(', ')}) VALUES (${columnNames.map(() => '?').join(', ')})`,
          );
          db.exec('BEGIN');
          for (const row of rows) insert.run(...row);
          db.exec('COMMIT');
        } finally {
          db.close();
        }
      },
      rows: (cellDir, table) =>
        sqliteSourceRows({
          path: join(cellDir, files.source),
          table: table.name,
          columns: table.columns.map((column) => column.name),
          partition: table.partition,
        }),
      seal: (cellDir) => sealSqliteFile(cellDir, files.source, sourceUrl),
    },
    journal: {
      kind: 'sqlite',
      lossModes,
      url: (cellDir) => `sqlite://${join(cellDir, files.journal)}`,
      open: openCellJournal,
      ops: sqliteJournalOperations,
    },
    files: names,
    isDurable: (name) => names.some((file) => ofDatabase(file, name)),
    dumpFile: sqliteDump,
  };
}
