import type { DponeError } from '../../../contracts/errors.ts';
import type { RowStream } from '../../../ports/connector.ts';
import type { FenceParams, FenceSql } from './marker-sql.ts';

export type { FenceParams } from './marker-sql.ts';

/**
 * What a database supplies to the transactional-marker kernel (the way a query builder has one
 * compiler and a small dialect per database): how its SQL spells the few things that differ, and
 * how it runs statements, transactions and the mutation's COMMIT. The protocol itself (which
 * statement runs when, what an answer means, which refusal is which) lives in this folder once.
 */

export interface SqlResult {
  readonly rows: readonly Readonly<Record<string, unknown>>[];
  /** How many rows the statement changed (the guard's 0 or 1). */
  readonly affected: number;
}

/** Runs one statement of the dialect's SQL (`@name` placeholders) with named parameters. */
export interface SqlRunner {
  run(sql: string, params: FenceParams): Promise<SqlResult>;
}

/** The mutation's open transaction on one connection. */
export interface MutationTx extends SqlRunner {
  deletePartition(column: string, value: string): Promise<number>;
  /**
   * Writes every row of the stream in this transaction, chunk by chunk, by the database's bulk
   * path (memory bounded by a chunk); returns how many it wrote. A source failure mid-stream
   * rejects, and the transaction is then rolled back like any failure before COMMIT.
   */
  insertRows(rows: RowStream): Promise<number>;
  /**
   * Sends COMMIT and waits for the reply. Where the driver hands COMMIT to the socket before the
   * reply arrives, the dialect hits `target.commit:sent` in between: a kill there leaves the
   * server to decide alone.
   */
  commit(): Promise<void>;
  /** Rolls back (a refusal decided after the guard: nothing was written). */
  rollback(): Promise<void>;
}

export interface MarkerDialect {
  /** For messages: the engine's name as users know it (its dialect in connectors/<engine>/ says it). */
  readonly label: string;
  /** The fence statements in this database's SQL (built with `fenceSql(style)`). */
  readonly sql: FenceSql;
  /** Runs the statements in order in one short transaction (one batch where the database allows it); returns the last one's result. */
  batch(statements: readonly string[], params: FenceParams): Promise<SqlResult>;
  /** Runs one statement outside any transaction (a read). */
  read(statement: string, params: FenceParams): Promise<SqlResult>;
  /**
   * Opens the mutation's transaction and runs body in it. If body throws before COMMIT was sent,
   * the transaction is rolled back (or the connection dropped, which rolls it back); after, the
   * outcome is the server's and only the fence can tell.
   */
  mutation<T>(body: (tx: MutationTx) => Promise<T>): Promise<T>;
  /**
   * Optional: this database's reading of a driver error at one step. `fallback` is the kernel's
   * code (FENCE_UNAVAILABLE; COMMIT_UNKNOWN for the mutation); a dialect may return a more precise
   * one where the server's error class proves the cause (a privilege, rejected data), and add the
   * server's error class and a hint. The executor still asks the fence after any mutation error.
   */
  refineError?(step: 'prepare' | 'mutate' | 'query', error: unknown, fallback: DponeError): DponeError;
  close(): Promise<void>;
}
