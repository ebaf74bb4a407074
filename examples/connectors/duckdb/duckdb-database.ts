import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { DponeError, ERROR_CODES, invalidInput } from 'dpone-cert';
import type { FenceParams, SqlResult } from 'dpone-cert';
import { positional } from 'dpone-cert';

/**
 * The slice of @duckdb/node-api this connector uses (typed here, loaded lazily: `dpone run` on
 * another route never loads the driver, and a unit test can hand in a fake).
 */
interface DuckConnection {
  run(sql: string, values?: unknown[]): Promise<{ readonly rowsChanged: number }>;
  runAndReadAll(sql: string, values?: unknown[]): Promise<{ getRowObjectsJS(): Record<string, unknown>[] }>;
  closeSync(): void;
}
interface DuckInstance {
  connect(): Promise<DuckConnection>;
  closeSync(): void;
}

/** How long an open waits for another process's lock on the file (DuckDB allows one writer process). */
const LOCK_WAIT_MS = 20_000;
const LOCK_RETRY_MS = 25;

/** `duckdb:path/to/file.duckdb` (relative to the workload's folder) or `duckdb:///abs/file.duckdb`. */
export function duckdbPath(url: string, baseDir: string, field: string): string {
  const match = /^duckdb:(?:\/\/)?(.+)$/.exec(url);
  if (!match || match[1]!.trim() === '')
    throw invalidInput(`${field}.url must be duckdb:<file> (e.g. duckdb:data/target.duckdb)`, {
      field: `${field}.url`,
    });
  const path = match[1]!;
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

/** Called after each statement a session on the file returned from (the connector kit's driver probe). */
export type StatementProbe = () => void | Promise<void>;
const probes = new Map<string, StatementProbe>();

/**
 * Test only: every session opened on `path` until the returned function is called calls `probe`
 * after each statement (BEGIN, each INSERT, COMMIT…), so the kit can crash between two statements
 * of one step (docs/connector-authoring.md, FenceFactoryOptions.afterDriverStatement).
 */
export function probeStatements(path: string, probe: StatementProbe): () => void {
  probes.set(path, probe);
  return () => probes.delete(path);
}

/** A DuckDB database file opened for one short unit of work, then closed (releasing its file lock). */
export class DuckdbSession {
  readonly #instance: DuckInstance;
  readonly #connection: DuckConnection;
  /** False for a second connection (another()): closing it leaves the file open. */
  readonly #ownsInstance: boolean;
  readonly #probe: StatementProbe | undefined;

  private constructor(
    instance: DuckInstance,
    connection: DuckConnection,
    probe: StatementProbe | undefined,
    ownsInstance = true,
  ) {
    this.#instance = instance;
    this.#connection = connection;
    this.#probe = probe;
    this.#ownsInstance = ownsInstance;
  }

  /**
   * Another connection to the same open file, with transactions of its own. The certified target
   * never uses one (data and fence share the mutation's transaction); the kit's broken copies do.
   */
  async another(): Promise<DuckdbSession> {
    return new DuckdbSession(this.#instance, await this.#instance.connect(), this.#probe, false);
  }

  /**
   * Opens the file, waiting while another process holds its lock (a worker in its transaction).
   * `readOnly` never creates the file: a missing one is FENCE_UNAVAILABLE.
   */
  static async open(path: string, readOnly: boolean, lockWaitMs = LOCK_WAIT_MS): Promise<DuckdbSession> {
    if (readOnly && !existsSync(path))
      throw new DponeError(ERROR_CODES.FENCE_UNAVAILABLE, 'the DuckDB target file does not exist', {
        field: 'target.url',
      });
    const { DuckDBInstance } = await import('@duckdb/node-api');
    const deadline = Date.now() + lockWaitMs;
    for (;;) {
      try {
        const options: Record<string, string> = readOnly ? { access_mode: 'READ_ONLY' } : {};
        const instance = (await DuckDBInstance.create(path, options)) as unknown as DuckInstance;
        return new DuckdbSession(instance, await instance.connect(), probes.get(path));
      } catch (error) {
        if (!isLockRefusal(error) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
      }
    }
  }

  /** Runs one statement written with `@name` parameters; rows for a query, `affected` otherwise. */
  async run(sql: string, params: FenceParams = {}): Promise<SqlResult> {
    const { text, values } = positional(sql, params);
    if (/^\s*SELECT/i.test(text)) {
      const reader = await this.#connection.runAndReadAll(text, values);
      await this.#probe?.();
      return { rows: reader.getRowObjectsJS(), affected: 0 };
    }
    const result = await this.#connection.run(text, values);
    await this.#probe?.();
    return { rows: [], affected: Number(result.rowsChanged) };
  }

  /** Runs a statement with positional `$n` values (bulk inserts). */
  async runValues(sql: string, values: unknown[]): Promise<number> {
    const changed = Number((await this.#connection.run(sql, values)).rowsChanged);
    await this.#probe?.();
    return changed;
  }

  close(): void {
    this.#connection.closeSync();
    if (this.#ownsInstance) this.#instance.closeSync();
  }
}

/** Runs `work` on a fresh session and always closes it. */
export async function withSession<T>(
  path: string,
  readOnly: boolean,
  work: (session: DuckdbSession) => Promise<T>,
): Promise<T> {
  const session = await DuckdbSession.open(path, readOnly);
  try {
    return await work(session);
  } finally {
    session.close();
  }
}

const isLockRefusal = (error: unknown): boolean =>
  /Could not set lock/i.test(String((error as Error | undefined)?.message));

/** How long the harness's reads wait for a lock before they read a copy instead. */
const VIEW_LOCK_WAIT_MS = 2_000;

/**
 * The harness's reads of a target (rows, fence): what any reader sees once the file is free. A
 * writer process holds DuckDB's file lock for as long as it lives, and a worker the harness stopped
 * inside its transaction (a pause cell) never lets go, so a read that waited failed after 20 s and
 * the cell was UNKNOWN. Then the file and its WAL are copied (the stopped process writes nothing
 * meanwhile) and the copy is read: DuckDB replays the WAL's committed transactions and never shows
 * an uncommitted one, as a reader after the lock would see it.
 */
export async function withCommittedView<T>(
  path: string,
  work: (session: DuckdbSession) => Promise<T>,
): Promise<T> {
  let session: DuckdbSession;
  try {
    session = await DuckdbSession.open(path, true, VIEW_LOCK_WAIT_MS);
  } catch (error) {
    if (!isLockRefusal(error)) throw error;
    const dir = mkdtempSync(join(tmpdir(), 'dpone-duckdb-view-'));
    try {
      const copy = join(dir, 'view.duckdb');
      copyFileSync(path, copy);
      if (existsSync(`${path}.wal`)) copyFileSync(`${path}.wal`, `${copy}.wal`);
      return await withSession(copy, true, work);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  try {
    return await work(session);
  } finally {
    session.close();
  }
}

export const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
