import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import type { NativeRows, Row, RowOrigin, SourceConnector } from '../ports/connector.ts';
import { collectRows, rowStream } from '../ports/row-stream.ts';
import { refusingEmptyPartitions } from './empty-partition.ts';

/** A source whose read yields `chunks` and counts how often its read was released. */
function source(chunks: readonly (readonly Row[])[], origin?: RowOrigin) {
  const seen = { released: 0, pulled: 0 };
  const connector: SourceConnector = {
    identity: 'fake:src',
    read: async () =>
      Object.assign(
        rowStream(
          ['id'],
          function* () {
            for (const chunk of chunks) {
              seen.pulled++;
              yield chunk;
            }
          },
          () => void seen.released++,
        ),
        origin ? { origin } : {},
      ),
    close: async () => undefined,
    [Symbol.asyncDispose]: async () => undefined,
  };
  return { connector, seen };
}

const REQUEST = { partitionColumn: 'day', partitionValue: '2026-07-18' };

describe('refusing empty partitions on a stream', () => {
  it('refuses a partition with no rows before answering, and releases the read', async () => {
    const { connector, seen } = source([[], []]);
    await expect(refusingEmptyPartitions(connector).read(REQUEST)).rejects.toMatchObject({
      code: ERROR_CODES.OBJECT_NOT_FOUND,
      fields: { field: 'data.partition.value' },
    });
    expect(seen.released).toBe(1);
  });

  it('looks at the first chunk only, then yields every row once, the first chunk included', async () => {
    const { connector, seen } = source([[[1], [2]], [[3]]]);
    const stream = await refusingEmptyPartitions(connector).read(REQUEST);
    expect(seen.pulled).toBe(1);
    expect(await collectRows(stream)).toEqual([[1], [2], [3]]);
    expect(seen.released).toBe(1);
  });

  it("keeps the stream's origin, so a target's engine copy still sees where the rows are", async () => {
    const origin: RowOrigin = {
      engine: 'fake',
      location: '/data/rows.db',
      table: 'events',
      ...REQUEST,
    };
    const stream = await refusingEmptyPartitions(source([[[1]]], origin).connector).read(REQUEST);
    expect(stream.origin).toEqual(origin);
    await stream.close();
    const plain = await refusingEmptyPartitions(source([[[1]]]).connector).read(REQUEST);
    expect(plain.origin).toBeUndefined();
    await plain.close();
  });

  it('a stream closed unread releases the read', async () => {
    const { connector, seen } = source([[[1]], [[2]]]);
    const stream = await refusingEmptyPartitions(connector).read(REQUEST);
    await stream.close();
    expect(seen.released).toBe(1);
  });

  it("passes the source's native bulk form and number typing on (the whole partition: the target may take it instead)", async () => {
    const native: NativeRows = {
      format: 'test-bytes/1',
      columnTypes: async () => ['integer'],
      open: async () => Object.assign((async function* () {})(), { rowCount: 0 }),
    };
    const connector: SourceConnector = {
      identity: 'fake:src',
      read: async () =>
        Object.assign(
          rowStream(['id'], () => [[[1]], [[2]]][Symbol.iterator]()),
          { native, numbers: 'typed' as const },
        ),
      close: async () => undefined,
      [Symbol.asyncDispose]: async () => undefined,
    };
    const stream = await refusingEmptyPartitions(connector).read(REQUEST);
    expect(stream.native).toBe(native);
    expect(stream.numbers).toBe('typed');
    expect(await collectRows(stream)).toEqual([[1], [2]]);
  });
});
