import { describe, expect, it } from 'vitest';
import { encodeCopyChunk } from './postgres-copy.ts';

describe('COPY text encoding', () => {
  it('escapes what COPY reads as structure, and NULL as \\N', () => {
    expect(encodeCopyChunk([['a\tb', 'c\nd', 'e\rf', 'g\\h', null, '\\N']])).toBe(
      'a\\tb\tc\\nd\te\\rf\tg\\\\h\t\\N\t\\\\N\n',
    );
  });

  it('writes numbers in JavaScript spelling and bytes as bytea hex', () => {
    const bytes = new Uint8Array([0, 255, 10]) as unknown as string;
    expect(
      encodeCopyChunk([
        [1, 0.1, -2.5e-7, bytes],
        ['x', '', ' ', 'ü'],
      ]),
    ).toBe('1\t0.1\t-2.5e-7\t\\\\x00ff0a\nx\t\t \tü\n');
  });
});
