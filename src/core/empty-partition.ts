import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { SourceBatch, SourceConnector, SourceReadRequest } from '../ports/connector.ts';

/**
 * A source that refuses an empty partition. A partition that matched no rows is far more often a
 * typo or a format mismatch (`2026-7-18` against text `2026-07-18`) than a real empty day, and
 * committing it would use up the operation id: every later run would answer already-complete.
 * The refusal is a cause no retry fixes (DPONE_OBJECT_NOT_FOUND); the executor then records
 * FAILED_PRE_COMMIT, releases the lease and writes nothing, so the corrected workload runs normally.
 * A workload that expects empty partitions says `data.partition.allow_empty: true`.
 */
export function refusingEmptyPartitions(source: SourceConnector): SourceConnector {
  return {
    identity: source.identity,
    async read(request: SourceReadRequest): Promise<SourceBatch> {
      const batch = await source.read(request);
      if (batch.rows.length > 0) return batch;
      throw new DponeError(
        ERROR_CODES.OBJECT_NOT_FOUND,
        'the source partition data.partition.value matched no rows',
        {
          field: 'data.partition.value',
          hint: 'check the value against the column (compared in its type, e.g. a date as YYYY-MM-DD); set data.partition.allow_empty: true when an empty partition is expected',
        },
      );
    },
    close: () => source.close(),
    [Symbol.asyncDispose]: () => source.close(),
  };
}
