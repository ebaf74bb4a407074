import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import type { Row } from './connector.ts';
import {
  checkSourceColumns,
  chunked,
  collectRows,
  rowStream,
  rowStreamOf,
  rowsFromObjects,
} from './row-stream.ts';

const rows = (n: number): Row[] => Array.from({ length: n }, (_, i) => [i, `v${i}`]);

describe('row streams', () => {
  it('chunks rows, never above the size, and keeps their order', () => {
    const chunks = [...chunked(rows(12), 5)];
    expect(chunks.map((c) => c.length)).toEqual([5, 5, 2]);
    expect(chunks.flat()).toEqual(rows(12));
  });

  it("a source with no column is the workload's mistake, named on data.columns", () => {
    expect(() => checkSourceColumns([], 'an example source')).toThrow(
      expect.objectContaining({
        code: ERROR_CODES.INVALID_INPUT,
        message: 'an example source needs at least one column',
        fields: { field: 'data.columns' },
      }),
    );
    expect(() => checkSourceColumns(['id'], 'an example source')).not.toThrow();
  });

  it('is read once: a second read is refused instead of yielding nothing', async () => {
    const stream = rowStreamOf(['id', 'v'], rows(3));
    expect(await collectRows(stream)).toEqual(rows(3));
    await expect(collectRows(stream)).rejects.toMatchObject({ code: ERROR_CODES.INTERNAL });
  });

  it('releases what the read holds once, at the end, on an early exit and on close', async () => {
    let released = 0;
    const make = () =>
      rowStream(
        ['id', 'v'],
        () => chunked(rows(10), 2),
        () => void released++,
      );
    await collectRows(make());
    expect(released).toBe(1);
    for await (const chunk of make()) {
      expect(chunk).toHaveLength(2);
      break;
    }
    expect(released).toBe(2);
    const unread = make();
    await unread.close();
    await unread.close();
    expect(released).toBe(3);
  });

  it('passes a failure of the source mid-read to the reader', async () => {
    function* failing() {
      yield rows(2);
      throw new Error('connection lost');
    }
    await expect(collectRows(rowStream(['id', 'v'], failing))).rejects.toThrow('connection lost');
  });

  it('turns rows written as objects into values in column order', () => {
    expect(rowsFromObjects(['b', 'a'], [{ a: 1, b: 'x' }, { a: null }])).toEqual([
      ['x', 1],
      [null, null],
    ]);
  });
});
