import { randomInt } from './seeded-random.ts';

/**
 * The numbers a cell's source rows carry beyond `amount`: values a connector going through a JS
 * number or a float changes without any error, so row parity (per natural key) shows it.
 *
 * `big` (a 64-bit integer) cycles by row id through 2^62 plus a seeded offset, its negative,
 * 2^53 + 1 (the first integer a double cannot hold), the largest 64-bit integer and NULL; every
 * partition of 5 rows or more holds each. `price` (an exact decimal, 18 digits with scale 6) is a
 * seeded value of up to 12 integral and 6 fractional digits, of either sign (a double keeps 15-17
 * significant digits: most of them lose digits through a float), NULL on every seventh row.
 * Both are canonical text (canonical-value.ts): exact integer digits; decimals without trailing zeros.
 */
export const BIG_2_62 = 2n ** 62n;
export const BIG_2_53_PLUS_1 = 2n ** 53n + 1n;
export const BIG_INT64_MAX = 2n ** 63n - 1n;
const BIG_CASES = 5;
const PRICE_NULL_EVERY = 7;
const MILLION = 1_000_000;

/** The `big` value of source row `id`, canonical (or null); draws one number from `random`. */
export function cellBig(id: number, random: () => number): string | null {
  const offset = BigInt(randomInt(random, 1, 999_999));
  switch (id % BIG_CASES) {
    case 0:
      return (BIG_2_62 + offset).toString();
    case 1:
      return (-(BIG_2_62 + offset)).toString();
    case 2:
      return BIG_2_53_PLUS_1.toString();
    case 3:
      return BIG_INT64_MAX.toString();
    default:
      return null;
  }
}

/** The `price` value of source row `id`, canonical (or null); draws four numbers from `random`. */
export function cellPrice(id: number, random: () => number): string | null {
  const negative = random() < 0.25;
  const whole = randomInt(random, 0, MILLION - 1) * MILLION + randomInt(random, 0, MILLION - 1);
  const fraction = String(randomInt(random, 0, MILLION - 1))
    .padStart(6, '0')
    .replace(/0+$/, '');
  if (id % PRICE_NULL_EVERY === 0) return null;
  const magnitude = fraction === '' ? String(whole) : `${whole}.${fraction}`;
  return negative && magnitude !== '0' ? `-${magnitude}` : magnitude;
}
