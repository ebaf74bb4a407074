import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type {
  ShadowAttempt,
  ShadowAttemptStart,
  ShadowJournal,
  ShadowOutcome,
} from '../../../src/ports/shadow-journal.ts';
import {
  SHADOW_INSERT_COLUMNS,
  SHADOW_COLUMNS,
  SHADOW_TABLE,
  nextShadowAttempt,
  shadowAttemptOf,
} from '../../../src/adapters/journal/shadow-row.ts';
import type { ShadowAttemptRow } from '../../../src/adapters/journal/shadow-row.ts';

const TABLE = SHADOW_TABLE;

const SCHEMA = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  attempt_id INTEGER PRIMARY KEY AUTOINCREMENT,${SHADOW_COLUMNS}
  rows_written INTEGER
);
CREATE INDEX IF NOT EXISTS ${TABLE}_operation ON ${TABLE} (operation_id)`;

/**
 * The shadow journal in a SQLite file (the workload's sqlite journal file: its own table beside
 * the protocol's). Every statement waits at most `timeoutMs` for a lock (busy_timeout), so a
 * locked journal delays the legacy write by a bounded time only.
 */
export class SqliteShadowJournal implements ShadowJournal {
  readonly location: string;
  readonly #db: DatabaseSync;

  private constructor(db: DatabaseSync, location: string) {
    this.#db = db;
    this.location = location;
  }

  /** Opens (with `create`: creates) the file and its table. */
  static open(
    path: string,
    options: { readonly timeoutMs: number; readonly create: boolean },
  ): SqliteShadowJournal {
    if (options.create) mkdirSync(dirname(path), { recursive: true });
    const db = new DatabaseSync(path, { timeout: options.timeoutMs, readOnly: !options.create });
    try {
      if (options.create) db.exec(SCHEMA);
      return new SqliteShadowJournal(db, path);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  async begin(
    start: ShadowAttemptStart,
    decide: (prior: readonly ShadowAttempt[]) => string,
  ): Promise<ShadowAttempt> {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const prior = this.#db
        .prepare(`SELECT * FROM ${TABLE} WHERE operation_id = ? ORDER BY attempt_id`)
        .all(start.operationId) as ShadowAttemptRow[];
      const next = nextShadowAttempt(start, prior, decide);
      const inserted = this.#db
        .prepare(
          `INSERT INTO ${TABLE} (${SHADOW_INSERT_COLUMNS})
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(...next.values);
      this.#db.exec('COMMIT');
      return next.begun(Number(inserted.lastInsertRowid));
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  async end(
    attemptId: number,
    outcome: ShadowOutcome,
    rowsWritten: number | null,
    endedAt: string,
  ): Promise<void> {
    this.#db
      .prepare(`UPDATE ${TABLE} SET outcome = ?, rows_written = ?, ended_at = ? WHERE attempt_id = ?`)
      .run(outcome, rowsWritten, endedAt, attemptId);
  }

  async attempts(since: string | null): Promise<readonly ShadowAttempt[]> {
    const exists = this.#db
      .prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ?")
      .get(TABLE);
    if (!exists) return [];
    const rows = (
      since === null
        ? this.#db.prepare(`SELECT * FROM ${TABLE} ORDER BY attempt_id`).all()
        : this.#db.prepare(`SELECT * FROM ${TABLE} WHERE started_at >= ? ORDER BY attempt_id`).all(since)
    ) as ShadowAttemptRow[];
    return rows.map((row) => shadowAttemptOf(row as ShadowAttemptRow));
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
