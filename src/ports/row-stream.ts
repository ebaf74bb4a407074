import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { Row, RowChunk, RowStream } from './connector.ts';

/**
 * Rows per chunk a source yields: large enough that a chunk's per-call costs vanish against its
 * rows, small enough that one chunk of wide rows stays a few megabytes.
 */
export const DEFAULT_CHUNK_ROWS = 5_000;

/**
 * A source reads at least one column: an empty list is the workload's mistake (INVALID_INPUT on
 * `data.columns`), caught when the source opens. `source` names it, e.g. "a <engine> source".
 */
export function checkSourceColumns(columns: readonly string[], source: string): void {
  if (columns.length === 0) {
    throw new DponeError(ERROR_CODES.INVALID_INPUT, `${source} needs at least one column`, {
      field: 'data.columns',
    });
  }
}

/**
 * A RowStream over a chunk generator: iterated once, closed once. `release` frees what the read
 * holds (a cursor, a statement, a connection's transaction) and runs whichever comes first: the
 * end of the iteration, an early exit of the consumer, or `close()`.
 */
export function rowStream(
  columns: readonly string[],
  chunks: () => AsyncIterator<RowChunk> | Iterator<RowChunk>,
  release: () => void | Promise<void> = () => undefined,
): RowStream {
  let started = false;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await release();
  };
  return {
    columns,
    async *[Symbol.asyncIterator]() {
      if (started || closed) {
        throw new DponeError(ERROR_CODES.INTERNAL, 'a row stream is read once; this one was read or closed');
      }
      started = true;
      const iterator = chunks();
      try {
        for (let read = 0; ; read++) {
          // Between chunks, a turn of the event loop: a synchronous source and target (an embedded
          // engine to itself) would otherwise hold it for the whole partition, and timers, signal handlers
          // and garbage-collection observers (young-generation.ts) would wait for the end.
          if (read > 0) await new Promise<void>((resolve) => setImmediate(resolve));
          const next = await iterator.next();
          if (next.done || closed) return;
          if (next.value.length > 0) yield next.value;
        }
      } finally {
        await iterator.return?.();
        await close();
      }
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Groups rows into chunks of at most `size`. */
export function* chunked(rows: Iterable<Row>, size: number = DEFAULT_CHUNK_ROWS): Generator<RowChunk> {
  let chunk: Row[] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length >= size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** A stream over rows already in memory (tests, tiny sources). */
export function rowStreamOf(
  columns: readonly string[],
  rows: readonly Row[],
  size: number = DEFAULT_CHUNK_ROWS,
): RowStream {
  return rowStream(columns, () => chunked(rows, size));
}

/** Rows given as objects keyed by column, in `columns` order (tests and fixtures write rows so). */
export function rowsFromObjects(
  columns: readonly string[],
  objects: readonly Readonly<Record<string, Row[number] | undefined>>[],
): Row[] {
  return objects.map((object) => columns.map((column) => object[column] ?? null));
}

/** Every row of a stream, in order (tests and small tools only: it holds the whole partition). */
export async function collectRows(stream: RowStream): Promise<Row[]> {
  const rows: Row[] = [];
  try {
    for await (const chunk of stream) rows.push(...chunk);
  } finally {
    await stream.close();
  }
  return rows;
}
