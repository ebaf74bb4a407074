import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { MemoryJournal } from '../../../src/adapters/journal/memory/memory-journal.ts';
import { openJournal } from '../../../src/cli/journal-url.ts';
import type { TargetCommitJournalPort } from '../../../src/ports/journal.ts';
import type { FenceLocationReading, FenceReading } from '../../../harness/evidence/evidence-types.ts';
import type { FenceOperations, JournalBackup, JournalOperations } from '../../../harness/routes/route.ts';

const FENCE = '_dpone_fence';
/** Where `rename` puts the fence table: out of the runtime's reach, still readable by the harness. */
const RENAMED_FENCE = '_dpone_fence_lost';
const JOURNAL_TABLE = 'dpone_commit_journal';
const BUSY_TIMEOUT_MS = 5_000;
const SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

async function removeWithSideFiles(file: string): Promise<void> {
  for (const suffix of ['', ...SIDE_FILES]) await rm(`${file}${suffix}`, { force: true });
}

/** Whether the file holds the journal's tables (read-only: creates nothing). */
function hasJournalSchema(file: string): boolean {
  if (!existsSync(file) || statSync(file).size === 0) return false;
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const row = db
      .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(JOURNAL_TABLE) as { n: number };
    return Number(row.n) > 0;
  } finally {
    db.close();
  }
}

/**
 * Opens the cell's journal for the harness without ever creating one: a journal a loss fault
 * deleted, emptied or stripped of its schema reads as an empty journal, so the harness neither
 * repairs it for the next worker nor hides the loss from the checks.
 */
export async function openCellJournal(cellDir: string, journalUrl: string): Promise<TargetCommitJournalPort> {
  if (!hasJournalSchema(join(cellDir, 'journal.db'))) return new MemoryJournal();
  return openJournal(journalUrl, { cwd: cellDir, env: {} });
}

async function fileDigest(file: string): Promise<string> {
  if (!existsSync(file)) return 'absent';
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** File operations on the cell's `journal.db` (and its `state/` folder). */
export function sqliteJournalOperations(cellDir: string): JournalOperations {
  const journal = join(cellDir, 'journal.db');
  let backups = 0;
  return {
    async wipe() {
      await removeWithSideFiles(journal);
      await writeFile(journal, '');
    },
    async delete() {
      await removeWithSideFiles(journal);
      await rm(join(cellDir, 'state'), { recursive: true, force: true });
    },
    async backup(): Promise<JournalBackup> {
      // VACUUM INTO from a read-only connection: a consistent copy of the committed journal
      // (WAL included) while a parked worker keeps it open, and nothing written to it.
      const copy = join(cellDir, `journal-backup-${++backups}.db`);
      await rm(copy, { force: true });
      const db = new DatabaseSync(journal, { readOnly: true });
      try {
        db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
        db.prepare('VACUUM INTO ?').run(copy);
      } finally {
        db.close();
      }
      return { id: copy };
    },
    async restore(backup: JournalBackup) {
      await removeWithSideFiles(journal);
      await cp(backup.id, journal);
    },
    async forkUrl() {
      const fork = join(cellDir, 'journal-fork.db');
      await removeWithSideFiles(fork);
      return `sqlite://${fork}`;
    },
    async dropWal() {
      const wal = `${journal}-wal`;
      const bytes = existsSync(wal) ? statSync(wal).size : 0;
      for (const suffix of SIDE_FILES) await rm(`${journal}${suffix}`, { force: true });
      return bytes;
    },
    async digest() {
      // The main file's bytes, and the WAL's when it holds frames (an empty WAL is no content).
      const wal = `${journal}-wal`;
      const walBytes = existsSync(wal) && statSync(wal).size > 0 ? await fileDigest(wal) : 'none';
      return `db:${await fileDigest(journal)} wal:${walBytes}`;
    },
  };
}

function withTarget<T>(target: string, readOnly: boolean, body: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(target, { readOnly });
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return body(db);
  } finally {
    db.close();
  }
}

function tableExists(db: DatabaseSync, table: string): boolean {
  const row = db
    .prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(table) as { n: number };
  return Number(row.n) > 0;
}

function readLocation(db: DatabaseSync, table: string, operationId: string): FenceLocationReading {
  if (!tableExists(db, table)) return { where: table, table: false, status: null, epoch: null };
  const row = db.prepare(`SELECT status, epoch FROM "${table}" WHERE operation_id = ?`).get(operationId) as
    { status: string; epoch: number } | undefined;
  return { where: table, table: true, status: row?.status ?? null, epoch: row ? Number(row.epoch) : null };
}

/** Fence operations on the cell's `target.db`, each on a connection of the harness's own. */
export function sqliteFenceOperations(cellDir: string): FenceOperations {
  const target = join(cellDir, 'target.db');
  return {
    async drop() {
      withTarget(target, false, (db) => db.exec(`DROP TABLE IF EXISTS ${FENCE}`));
    },
    async rename() {
      withTarget(target, false, (db) => {
        if (tableExists(db, FENCE)) db.exec(`ALTER TABLE ${FENCE} RENAME TO ${RENAMED_FENCE}`);
      });
    },
    async read(operationId: string): Promise<FenceReading> {
      return withTarget(target, true, (db) => ({
        locations: [FENCE, RENAMED_FENCE].map((table) => readLocation(db, table, operationId)),
      }));
    },
  };
}
