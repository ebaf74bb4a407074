import { describe, expect, it } from 'vitest';
import { binaryCopyRefusal, encodeCopyChunk } from './postgres-copy.ts';

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

describe('binary COPY: which columns may take it', () => {
  const columns = ['id', 'amount', 'kind'];

  it('takes the same built-in types with the same modifiers', () => {
    const types = ['integer', 'numeric(12,2)', 'text'];
    expect(binaryCopyRefusal(columns, types, [...types])).toBeNull();
  });

  it('refuses a type or modifier that differs, naming the column and both types', () => {
    expect(
      binaryCopyRefusal(columns, ['integer', 'numeric(12,2)', 'text'], ['integer', 'numeric(14,2)', 'text']),
    ).toBe('column amount is numeric(12,2) in the source, numeric(14,2) in the target');
    expect(binaryCopyRefusal(columns, ['integer', 'numeric', 'text'], ['bigint', 'numeric', 'text'])).toBe(
      'column id is integer in the source, bigint in the target',
    );
  });

  it("refuses a type of the database's own even when both sides name it alike, and a missing column", () => {
    const mood = ['integer', 'numeric', 'user-defined mood'];
    expect(binaryCopyRefusal(columns, mood, [...mood])).toBe(
      "column kind has a type that is not PostgreSQL's own (user-defined mood)",
    );
    expect(binaryCopyRefusal(columns, ['integer', 'missing', 'text'], ['integer', 'missing', 'text'])).toBe(
      "column amount has a type that is not PostgreSQL's own (missing)",
    );
  });
});
