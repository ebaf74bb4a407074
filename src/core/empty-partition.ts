import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { RowChunk, RowStream, SourceConnector, SourceReadRequest } from '../ports/connector.ts';
import { rowStream } from '../ports/row-stream.ts';

/**
 * A source that refuses an empty partition. A partition that matched no rows is far more often a
 * typo or a format mismatch (`2026-7-18` against text `2026-07-18`) than a real empty day, and
 * committing it would use up the operation id: every later run would answer already-complete.
 * The refusal is a cause no retry fixes (DPONE_OBJECT_NOT_FOUND); the executor then records
 * FAILED_PRE_COMMIT, releases the lease and writes nothing, so the corrected workload runs normally.
 * A workload that expects empty partitions says `data.partition.allow_empty: true`.
 *
 * The read pulls the first chunk before it answers (before the journal says COMMITTING): that
 * chunk is kept and yielded first, so the stream stays bounded and the rows are read once.
 */
export function refusingEmptyPartitions(source: SourceConnector): SourceConnector {
  return {
    identity: source.identity,
    async read(request: SourceReadRequest): Promise<RowStream> {
      const stream = await source.read(request);
      const iterator = stream[Symbol.asyncIterator]();
      let first: IteratorResult<RowChunk>;
      try {
        first = await iterator.next();
      } catch (error) {
        await stream.close();
        throw error;
      }
      if (first.done) {
        await stream.close();
        throw new DponeError(
          ERROR_CODES.OBJECT_NOT_FOUND,
          'the source partition data.partition.value matched no rows',
          {
            field: 'data.partition.value',
            hint: 'check the value against the column (compared in its type, e.g. a date as YYYY-MM-DD); set data.partition.allow_empty: true when an empty partition is expected',
          },
        );
      }
      async function* rest() {
        yield first.value;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      }
      const wrapped = rowStream(stream.columns, rest, async () => {
        await iterator.return?.();
        await stream.close();
      });
      // The source's number typing travels with its rows (an embedded file's REAL stays REAL), and so does
      // where they live (a target's engine copy reads them there: the first chunk read here is
      // then only the emptiness check), and so does its native bulk form (the whole partition, the
      // first chunk included).
      return Object.assign(wrapped, {
        ...(stream.numbers ? { numbers: stream.numbers } : {}),
        ...(stream.origin ? { origin: stream.origin } : {}),
        ...(stream.native ? { native: stream.native } : {}),
      });
    },
    close: () => source.close(),
    [Symbol.asyncDispose]: () => source.close(),
  };
}
