import pg from 'pg';
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
import { parseJournalUrl } from './postgres-journal-config.ts';

/** Advisory lock key the shadow table's creators take ("dpsh"), apart from the commit journal's. */
export const SHADOW_CREATE_LOCK_KEY = 0x64707368;

/**
 * The shadow journal in the PostgreSQL journal database (table `dpone_shadow_attempts`, in the
 * URL's `?schema=` when it names one): one connection whose connect and every query give up after
 * `timeoutMs`, so an unreachable or stalled server delays the legacy write by a bounded time only.
 */
export class PostgresShadowJournal implements ShadowJournal {
  readonly location: string;
  readonly #client: pg.Client;
  readonly #table: string;

  private constructor(client: pg.Client, location: string, table: string) {
    this.#client = client;
    this.location = location;
    this.#table = table;
  }

  static async open(
    url: string,
    password: string | undefined,
    options: { readonly timeoutMs: number; readonly create: boolean },
  ): Promise<PostgresShadowJournal> {
    const config = parseJournalUrl(url, password);
    const client = new pg.Client({
      ...config.pool,
      application_name: 'dpone-shadow',
      connectionTimeoutMillis: options.timeoutMs,
      query_timeout: options.timeoutMs,
    });
    client.on('error', () => undefined);
    const table = `${config.schema ? `${config.schema}.` : ''}${SHADOW_TABLE}`;
    const location = `postgres://${config.pool.host}:${config.pool.port}/${config.pool.database}`;
    try {
      await client.connect();
      if (options.create) {
        // Two first attempts open at once (a race, two tasks of one DAG run): a bare
        // CREATE TABLE IF NOT EXISTS then fails in one of them on the catalog's unique index, and
        // that attempt would go unrecorded. The lock orders the creators; the second finds the table.
        await client.query('BEGIN');
        try {
          await client.query('SELECT pg_advisory_xact_lock($1)', [SHADOW_CREATE_LOCK_KEY]);
          await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
          attempt_id BIGSERIAL PRIMARY KEY,${SHADOW_COLUMNS}
          rows_written BIGINT)`);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }
      return new PostgresShadowJournal(client, location, table);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  async begin(
    start: ShadowAttemptStart,
    decide: (prior: readonly ShadowAttempt[]) => string,
  ): Promise<ShadowAttempt> {
    await this.#client.query('BEGIN');
    try {
      // One operation's attempts are numbered one at a time.
      await this.#client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [start.operationId]);
      const prior = await this.#client.query(
        `SELECT * FROM ${this.#table} WHERE operation_id = $1 ORDER BY attempt_id`,
        [start.operationId],
      );
      const next = nextShadowAttempt(start, prior.rows as ShadowAttemptRow[], decide);
      const inserted = await this.#client.query(
        `INSERT INTO ${this.#table} (${SHADOW_INSERT_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING attempt_id`,
        [...next.values],
      );
      await this.#client.query('COMMIT');
      return next.begun(Number((inserted.rows[0] as ShadowAttemptRow).attempt_id));
    } catch (error) {
      await this.#client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  async end(
    attemptId: number,
    outcome: ShadowOutcome,
    rowsWritten: number | null,
    endedAt: string,
  ): Promise<void> {
    await this.#client.query(
      `UPDATE ${this.#table} SET outcome = $1, rows_written = $2, ended_at = $3 WHERE attempt_id = $4`,
      [outcome, rowsWritten, endedAt, attemptId],
    );
  }

  async attempts(since: string | null): Promise<readonly ShadowAttempt[]> {
    const exists = await this.#client.query('SELECT to_regclass($1) AS found', [this.#table]);
    if ((exists.rows[0] as ShadowAttemptRow).found === null) return [];
    const rows =
      since === null
        ? await this.#client.query(`SELECT * FROM ${this.#table} ORDER BY attempt_id`)
        : await this.#client.query(
            `SELECT * FROM ${this.#table} WHERE started_at >= $1 ORDER BY attempt_id`,
            [since],
          );
    return rows.rows.map((row) => shadowAttemptOf(row as ShadowAttemptRow));
  }

  async close(): Promise<void> {
    await this.#client.end().catch(() => undefined);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
