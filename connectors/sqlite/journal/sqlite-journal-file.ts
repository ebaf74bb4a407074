import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { SQLITE_JOURNAL_SCHEMA } from './sqlite-schema.ts';

/**
 * The journal file's life cycle: created whole or not at all, and opened for reading without
 * changing a byte (also on read-only media).
 */

const TABLES = ['dpone_commit_journal', 'dpone_commit_journal_history'];
const SQLITE_READONLY = 8;
const SQLITE_CANTOPEN = 14;

/** Whether the open database holds the journal's tables. */
export function hasJournalSchema(db: DatabaseSync): boolean {
  const rows = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${TABLES.map(() => '?').join(', ')})`,
    )
    .all(...TABLES);
  return rows.length === TABLES.length;
}

/**
 * Creates the journal at `path` when no file is there: the schema is written into a temporary
 * file beside it (synchronous=FULL) which is then hard-linked into place, so `path` never names a half-created journal. Of two racing creators one links, the
 * other finds the file there. Returns whether this call created it.
 */
export function createJournalFile(path: string): boolean {
  if (existsSync(path)) return false;
  const temporary = `${path}.creating-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    const db = new DatabaseSync(temporary);
    try {
      // A rollback journal here (the file is private until linked); the opener switches the
      // linked file to WAL, so its WAL is set up while opening, not on the first protocol write.
      db.exec('PRAGMA journal_mode = DELETE');
      db.exec('PRAGMA synchronous = FULL');
      db.exec('BEGIN IMMEDIATE');
      db.exec(SQLITE_JOURNAL_SCHEMA);
      db.exec('COMMIT');
    } finally {
      db.close();
    }
    try {
      linkSync(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
    const folder = openSync(dirname(path), 'r');
    try {
      fsyncSync(folder);
    } finally {
      closeSync(folder);
    }
    return true;
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${temporary}${suffix}`, { force: true });
  }
}

/**
 * Opens the journal read-only. A WAL journal on read-only media cannot get its shared-memory file,
 * so there it is opened immutable (nothing can write it there anyway); elsewhere plain read-only,
 * which still sees a live writer's committed changes.
 */
export function openJournalReadOnly(path: string): DatabaseSync {
  if (!existsSync(path)) throw Object.assign(new Error('no journal file'), { code: 'ENOENT' });
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').all();
    return db;
  } catch (error) {
    if (db?.isOpen) db.close();
    // Only "cannot open / read-only": a read-only file system. Anything else is reported.
    const code = Number((error as { errcode?: unknown }).errcode) & 0xff;
    if (code !== SQLITE_CANTOPEN && code !== SQLITE_READONLY) throw error;
    const url = pathToFileURL(path);
    url.search = 'immutable=1';
    return new DatabaseSync(url, { readOnly: true });
  }
}
