import { randomInt } from './seeded-random.ts';

/**
 * The `at` value of a cell's source rows: an instant with a time zone, as ISO-8601 text with its
 * offset, that a connector shifting zones changes without any error, so row parity (per natural
 * key, instants compared in UTC: canonical-value.ts) shows it. Chosen by the row id, so every
 * partition of 6 rows or more holds each case:
 * - `+05:30` and `-08:00` (half-hour and negative offsets; the `-08:00` one is another UTC day);
 * - both sides of DST edges in America/New_York, written with the offset in force: the last
 *   microsecond before spring-forward (`-05:00`) and the repeated 01:30 of fall-back in its second
 *   occurrence (`-05:00`, where the wall clock alone is ambiguous);
 * - `Z`, at the EU fall-back instant (01:00 UTC);
 * - NULL.
 * Seeded microseconds (sub-second precision every target here keeps: a server's zoned timestamp
 * types to the microsecond, the others as text).
 */
const INSTANT_CASES = 6;

function micros(random: () => number): string {
  return String(randomInt(random, 1, 999_999)).padStart(6, '0');
}

/** The `at` value of source row `id` (or null); draws one number from `random`. */
export function cellInstant(id: number, random: () => number): string | null {
  const fraction = micros(random);
  switch (id % INSTANT_CASES) {
    case 0:
      return `2026-07-05T14:03:27.${fraction}+05:30`;
    case 1:
      return `2026-07-04T23:59:59.${fraction}-08:00`;
    case 2:
      return '2026-03-08T01:59:59.999999-05:00';
    case 3:
      return `2026-11-01T01:30:00.${fraction}-05:00`;
    case 4:
      return `2026-10-25T01:00:00.${fraction}Z`;
    default:
      return null;
  }
}
