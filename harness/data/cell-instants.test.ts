import { describe, expect, it } from 'vitest';
import { seededRandom } from './seeded-random.ts';
import { canonicalValue } from './canonical-value.ts';
import { cellInstant } from './cell-instants.ts';

describe('cell instants', () => {
  const random = seededRandom(42);
  const values = Array.from({ length: 6 }, (_, i) => cellInstant(i + 1, random));

  it('six consecutive rows hold every case: +05:30, -08:00, both DST edges, Z and NULL', () => {
    expect(values.filter((v) => v === null)).toHaveLength(1);
    const zones = values.filter((v) => v !== null).map((v) => /(Z|[+-]\d{2}:\d{2})$/.exec(v!)![1]);
    expect(zones.sort()).toEqual(['+05:30', '-05:00', '-05:00', '-08:00', 'Z']);
  });

  it('compare as instants in UTC to the microsecond, the offset applied', () => {
    expect(canonicalValue('timestamp', '2026-07-05T14:03:27.123456+05:30')).toBe(
      '2026-07-05T08:33:27.123456Z',
    );
    expect(canonicalValue('timestamp', '2026-07-04T23:59:59.000001-08:00')).toBe(
      '2026-07-05T07:59:59.000001Z',
    );
    // A server's text form of the same instant in another session zone is the same value.
    expect(canonicalValue('timestamp', '2026-07-05 14:18:27.123456+05:45')).toBe(
      '2026-07-05T08:33:27.123456Z',
    );
  });

  it('a zone dropped on the way is another value for every zoned case but Z', () => {
    for (const value of values.filter((v): v is string => v !== null && !v.endsWith('Z'))) {
      const wallClock = value.replace(/[+-]\d{2}:\d{2}$/, '');
      expect(canonicalValue('timestamp', wallClock)).not.toBe(canonicalValue('timestamp', value));
    }
  });
});
