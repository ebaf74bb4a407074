import { existsSync, readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { DponeError } from '../../../src/contracts/errors.ts';
import { SqliteJournal } from '../journal/sqlite-journal.ts';
import type { JournalFileOperations, JournalFileReading } from '../../../harness/routes/route.ts';
import { readsEveryEntry } from '../../../harness/routes/journal-reads.ts';
import { readJournalRows } from './sqlite-power-loss.ts';

/**
 * The SQLite journal file as the storage faults (full-disk, journal-corruption) need it. Readers go
 * through the runtime's own adapter, read-only: quick_check at open, row checksums, a key that no
 * longer matches its history. A WAL journal keeps `-wal` and `-shm` beside the file.
 */
export function sqliteJournalFile(path: string): JournalFileOperations {
  return {
    path,
    image: readJournalRows,
    sideSuffixes: ['-wal', '-shm'],
    async create(at) {
      await (await SqliteJournal.open(at)).close();
    },
    open: (at) => SqliteJournal.open(at, { readOnly: true }),
    async settle() {
      if (!existsSync(path)) return null;
      const db = new DatabaseSync(path);
      try {
        // What the next open would do: the WAL folded into the file, so damage lands where it reads.
        db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
        const row = db.prepare('SELECT operation_id FROM dpone_commit_journal').get() as
          { operation_id: string } | undefined;
        return row?.operation_id ?? null;
      } catch (error) {
        if (/no such table/.test((error as Error).message)) return null;
        throw error;
      } finally {
        db.close();
      }
    },
    async read(at, operationId): Promise<JournalFileReading> {
      try {
        await using journal = await SqliteJournal.open(at, { readOnly: true });
        const entry = await journal.get(operationId);
        if (entry === null) return { kind: 'absent' };
        return {
          kind: 'entry',
          entry: JSON.stringify(entry),
          state: entry.state,
          leaseHeld: entry.lease !== null,
        };
      } catch (error) {
        return { kind: 'error', code: error instanceof DponeError ? error.code : 'an error' };
      }
    },
    async readsWhole(at) {
      try {
        await using journal = await SqliteJournal.open(at, { readOnly: true });
        return await readsEveryEntry(journal);
      } catch {
        return false;
      }
    },
    entryRowRanges(at) {
      const db = new DatabaseSync(at, { readOnly: true });
      try {
        const size = Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
        const pages = db
          .prepare(
            "SELECT pageno FROM dbstat WHERE name = 'dpone_commit_journal' AND pagetype = 'leaf' ORDER BY pageno",
          )
          .all() as { pageno: number }[];
        const bytes = readFileSync(at);
        return pages.map(({ pageno }) => {
          const start = (Number(pageno) - 1) * size;
          // A b-tree page's header (after the 100-byte file header on page 1) says where its cells begin.
          const header = start + (Number(pageno) === 1 ? 100 : 0);
          const content = bytes.readUInt16BE(header + 5) || 65_536;
          return { from: start + Math.min(content, size - 1), to: start + size };
        });
      } finally {
        db.close();
      }
    },
  };
}
