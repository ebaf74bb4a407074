import { describe, expect, it } from 'vitest';
import type { RowChunk, RowStream } from '../../../ports/connector.ts';
import { flawedProtocol } from './marker-unsafe-target.ts';

function streamOf(chunk: RowChunk): RowStream {
  return {
    columns: ['id', 'at', 'label'],
    async *[Symbol.asyncIterator]() {
      yield chunk;
    },
    close: async () => undefined,
    [Symbol.asyncDispose]: async () => undefined,
  };
}

async function through(flawed: RowStream): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const chunk of flawed) out.push(...chunk.map((row) => [...row]));
  return out;
}

describe('timezone-shifted (unsafe variant)', () => {
  it('writes a zoned instant as a -08:00 wall clock without any zone; other values pass', async () => {
    const { rows } = flawedProtocol({ shiftsZones: true });
    const out = await through(
      rows!(
        streamOf([
          [1, '2026-07-05T14:03:27.123456+05:30', 'label +05:30'],
          [2, '2026-07-05 08:33:27.5+00', null],
          [3, '2026-10-25T01:00:00Z', '2026-07-05'],
        ]),
      ),
    );
    expect(out).toEqual([
      [1, '2026-07-05 00:33:27.123456', 'label +05:30'],
      [2, '2026-07-05 00:33:27.5', null],
      [3, '2026-10-24 17:00:00', '2026-07-05'],
    ]);
  });
});
