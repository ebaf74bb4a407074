import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { sqliteFilePath } from './sqlite-file.ts';

describe('sqliteFilePath', () => {
  it('resolves relative paths against the workload folder and keeps absolute ones', () => {
    expect(sqliteFilePath('sqlite:data/t.db', '/w/workload.yaml', 'target.url')).toBe('/w/data/t.db');
    expect(sqliteFilePath('sqlite:///abs/t.db', '/w/workload.yaml', 'target.url')).toBe('/abs/t.db');
  });

  // A server's URL (any scheme but this engine's) is refused like a malformed file URL.
  it.each(['server://h/db', 'sqlite://host/t.db', 'sqlite:', 'sqlite:dir/'])(
    'refuses %s naming the field',
    (url) => {
      const parse = () => sqliteFilePath(url, '/w/workload.yaml', 'source.url');
      expect(parse).toThrow(DponeError);
      expect(parse).toThrow(
        expect.objectContaining({
          code: ERROR_CODES.INVALID_INPUT,
          fields: expect.objectContaining({ field: 'source.url' }),
        }),
      );
    },
  );
});
