import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { SQLInputValue } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, EXIT_CODES } from '../../../src/contracts/errors.ts';
import { casRequest, create, dponeRejection, opId, step } from '../../../testing/journal-conformance-kit.ts';
import { SqliteJournal } from './sqlite-journal.ts';
import { SQLITE_JOURNAL_SCHEMA } from './sqlite-schema.ts';
import { entryToRow, historyToRow } from '../../../src/adapters/journal/journal-row.ts';

/**
 * Row checksums of the SQLite journal: a byte of a row's field changed in the file (quick_check
 * cannot see it: the page still holds together) reads as damage, never as a state; a journal
 * written before checksums gains them on its first writable open, history still append-only.
 */
const dir = mkdtempSync(join(tmpdir(), 'dpone-row-checksum-'));

/** Flips one letter of the only occurrence of `text` in the file's bytes. */
function flipLetter(path: string, text: string): void {
  const bytes = readFileSync(path);
  const at = bytes.indexOf(Buffer.from(text, 'latin1'));
  expect(at).toBeGreaterThanOrEqual(0);
  expect(bytes.indexOf(Buffer.from(text, 'latin1'), at + 1)).toBe(-1);
  bytes[at + 1] = bytes[at + 1]! ^ 0x01;
  writeFileSync(path, bytes);
}

/** Writes a journal at `path` holding the entry `id` stepped to PREPARED (two history rows), and closes it. */
async function writePrepared(path: string, id: string): Promise<void> {
  await using journal = await SqliteJournal.open(path);
  await step(journal, await create(journal, id), 'PREPARED');
}

/** Inserts `row` (column → value) into `table` as it is: no checksum, the way an older version wrote it. */
function insertRow<Row extends { [Column in keyof Row]: SQLInputValue }>(
  db: DatabaseSync,
  table: string,
  row: Row,
): void {
  const columns = Object.keys(row);
  db.prepare(
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  ).run(...Object.values(row as Record<string, SQLInputValue>));
}

describe('SQLite journal row checksums', () => {
  it('an entry whose key bytes were damaged (its history still there) is JOURNAL_CORRUPT, never an absent entry to create again', async () => {
    const path = join(dir, 'flipped-key.db');
    const id = opId('flip-key');
    await writePrepared(path, id);
    // The key sorts elsewhere now: a lookup by the operation id misses the row and its checksum.
    const raw = new DatabaseSync(path);
    raw.prepare('UPDATE dpone_commit_journal SET operation_id = ? WHERE operation_id = ?').run(`${id}x`, id);
    raw.close();
    await using journal = await SqliteJournal.open(path, { chosenBy: '--journal' });
    const error = await dponeRejection(journal.get(id));
    expect(error.code).toBe(ERROR_CODES.JOURNAL_CORRUPT);
    expect(error.message).toBe(
      `the SQLite commit journal ${path} (chosen by --journal) could not be read or written: its bytes are damaged (history without its entry)`,
    );
    // Creating the intent again reads first: refused as damage, not "unavailable" on the history's key.
    const again = await dponeRejection(create(journal, id));
    expect(again.code).toBe(ERROR_CODES.JOURNAL_CORRUPT);
    // An operation that never had an entry still reads as absent.
    expect(await journal.get(opId('never-created'))).toBeNull();
  });

  it('a letter flipped in an entry row (a state, a fence location) is JOURNAL_CORRUPT naming the file and who chose it', async () => {
    const path = join(dir, 'flipped-entry.db');
    const id = opId('flip-entry');
    await writePrepared(path, id);
    // The entry's metadata names its target; history rows carry other text. Only the entry holds this.
    flipLetter(path, '"target_identity":"memory:conformance.target"}');
    await using journal = await SqliteJournal.open(path, { chosenBy: '--journal' });
    const error = await dponeRejection(journal.get(id));
    expect(error.code).toBe(ERROR_CODES.JOURNAL_CORRUPT);
    expect(EXIT_CODES[error.code]).toBe(19);
    expect(error.message).toBe(
      `the SQLite commit journal ${path} (chosen by --journal) could not be read or written: its bytes are damaged (row checksum mismatch)`,
    );
    // A write reads the entry first: refused the same way, nothing written.
    const cas = await dponeRejection(
      journal.compareAndSet(casRequest(id, 2, 'PREPARED', 'COMMITTING', 2_000, 'test')),
    );
    expect(cas.code).toBe(ERROR_CODES.JOURNAL_CORRUPT);
  });

  it('a letter flipped in a history row is JOURNAL_CORRUPT when the history is read', async () => {
    const path = join(dir, 'flipped-history.db');
    const id = opId('flip-history');
    await writePrepared(path, id);
    flipLetter(path, `"reason":"conformance:PREPARING->PREPARED"`);
    await using journal = await SqliteJournal.open(path);
    expect((await journal.get(id))?.state).toBe('PREPARED');
    expect((await dponeRejection(journal.history(id))).code).toBe(ERROR_CODES.JOURNAL_CORRUPT);
  });

  it('a journal from before checksums gains one per row on its first writable open; its history stays append-only', async () => {
    const path = join(dir, 'old.db');
    const id = opId('old');
    // An old journal, written as the previous version did: no row_checksum column, user_version 1.
    const rows = await (async () => {
      await using memory = await SqliteJournal.open(join(dir, 'model.db'));
      const entry = await create(memory, id);
      return { entry: await step(memory, entry, 'PREPARED'), history: await memory.history(id) };
    })();
    const old = new DatabaseSync(path);
    old.exec(SQLITE_JOURNAL_SCHEMA);
    old.exec('PRAGMA user_version = 1');
    insertRow(old, 'dpone_commit_journal', entryToRow(rows.entry));
    for (const record of rows.history) insertRow(old, 'dpone_commit_journal_history', historyToRow(record));
    old.close();
    {
      await using journal = await SqliteJournal.open(path);
      expect(await journal.get(id)).toEqual(rows.entry);
      expect(await journal.history(id)).toEqual(rows.history);
    }
    const db = new DatabaseSync(path);
    try {
      expect(db.prepare('PRAGMA user_version').get()).toEqual({ user_version: 2 });
      const missing = db
        .prepare('SELECT COUNT(*) AS n FROM dpone_commit_journal_history WHERE row_checksum IS NULL')
        .get();
      expect(missing).toEqual({ n: 0 });
      expect(() => db.exec("UPDATE dpone_commit_journal_history SET kind = 'x'")).toThrow(/append-only/);
    } finally {
      db.close();
    }
    // Migrated rows are verified like new ones: one flipped letter is damage.
    flipLetter(path, '"target_identity":"memory:conformance.target"}');
    await using journal = await SqliteJournal.open(path);
    expect((await dponeRejection(journal.get(id))).code).toBe(ERROR_CODES.JOURNAL_CORRUPT);
  });
});
