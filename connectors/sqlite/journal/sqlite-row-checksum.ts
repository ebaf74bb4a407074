import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { ENTRY_COLUMNS, HISTORY_COLUMNS } from '../../../src/adapters/journal/journal-row.ts';

/**
 * Each row of the SQLite journal carries a checksum of its fields (`row_checksum`), written by this
 * adapter with the row and verified whenever a row is read, so a flipped bit in a row's bytes is
 * damage (DPONE_TARGET_COMMIT_JOURNAL_CORRUPT), never a state, an intent conflict or a divergence.
 *
 * Written by the adapter, not a trigger: SQLite has no hash function of its own, and a trigger
 * calling one this process registers would make the file unwritable (and its rows unreadable as
 * evidence) for every other client: the sqlite3 shell an operator inspects it with, an older
 * dpone. The cost is that a writer which does not know the column (a dpone before this one)
 * leaves a stale checksum, read as damage: the journal fails closed, it never reads a wrong state.
 */
export const CHECKSUM_COLUMN = 'row_checksum';

export type JournalTable = 'entry' | 'history';

const COLUMNS: Record<JournalTable, readonly string[]> = { entry: ENTRY_COLUMNS, history: HISTORY_COLUMNS };

/** Numbers in a canonical form whatever the driver returned (number, bigint or numeric text stays text). */
function canonical(value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value === undefined ? null : value;
}

/** SHA-256 (hex) of the table's name and the row's fields in column order. */
export function rowChecksum(table: JournalTable, row: Readonly<Record<string, unknown>>): string {
  const fields = COLUMNS[table].map((column) => canonical(row[column]));
  return createHash('sha256')
    .update(`dpone-journal-row:1:${table}\u0000${JSON.stringify(fields)}`)
    .digest('hex');
}

/** Whether a row read back carries the checksum of its fields. */
export function rowIntact(table: JournalTable, row: Readonly<Record<string, unknown>>): boolean {
  return typeof row[CHECKSUM_COLUMN] === 'string' && row[CHECKSUM_COLUMN] === rowChecksum(table, row);
}

const TABLE_NAMES: Record<JournalTable, string> = {
  entry: 'dpone_commit_journal',
  history: 'dpone_commit_journal_history',
};

function hasChecksumColumn(db: DatabaseSync, table: JournalTable): boolean {
  return db
    .prepare(`PRAGMA main.table_info(${TABLE_NAMES[table]})`)
    .all()
    .some((column) => column.name === CHECKSUM_COLUMN);
}

/** Whether the journal's rows carry checksums (a journal no writer of this version opened has none). */
export function hasChecksums(db: DatabaseSync): boolean {
  return hasChecksumColumn(db, 'entry') && hasChecksumColumn(db, 'history');
}

/**
 * Migration, inside the opener's write transaction: a journal written before checksums gains the
 * column and a checksum for every row it holds (the append-only trigger of the history is dropped
 * for this one statement; the opener's schema re-creates it in the same transaction). From then on
 * a row without a checksum is damage. Returns whether it migrated.
 */
export function addChecksums(db: DatabaseSync): boolean {
  if (hasChecksums(db)) return false;
  for (const table of ['entry', 'history'] as const) {
    const name = TABLE_NAMES[table];
    if (!hasChecksumColumn(db, table)) db.exec(`ALTER TABLE ${name} ADD COLUMN ${CHECKSUM_COLUMN} TEXT`);
    if (table === 'history') db.exec('DROP TRIGGER IF EXISTS dpone_commit_journal_history_no_update');
    const key = table === 'entry' ? ['operation_id'] : ['operation_id', 'version'];
    const update = db.prepare(
      `UPDATE ${name} SET ${CHECKSUM_COLUMN} = ? WHERE ${key.map((k) => `${k} = ?`).join(' AND ')}`,
    );
    for (const row of db.prepare(`SELECT * FROM ${name}`).all())
      update.run(rowChecksum(table, row), ...key.map((k) => row[k] as string | number));
  }
  return true;
}
