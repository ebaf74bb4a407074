/**
 * Values ClickHouse would change without a word. 18.16 parses TabSeparated text into the column's
 * type and, for several types, stores something else instead of refusing: Int8 `300` -> 44, Int32
 * `3000000000` -> -1294967296, UInt64 2^64 -> 0, Date `2026-02-30` -> 2026-03-02, DateTime
 * `25:61:61` rolled into the next day, `18/07/2026` -> 0000-00-00, NULL into a non-Nullable column
 * -> 0 or '', a short FixedString padded with zero bytes. Each rule below says, for one column type,
 * which values reach the column exactly; anything else is refused before the write (the caller
 * raises DATA_REJECTED naming the column, the row and this rule, never the value).
 *
 * Refused per type (documented in README "ClickHouse: exact values or a refusal"):
 * - (U)Int8..(U)Int256: not an integer in the type's range (integers come as bigint, number or text);
 * - Date: not `YYYY-MM-DD`, not a calendar date, or outside 1970-01-01..2105-12-31;
 * - DateTime, DateTime('tz'): not `YYYY-MM-DD hh:mm:ss` with a real date and time, or a year
 *   outside 1970..2105 (the server's time zone decides the exact bounds; these are inside them);
 * - Enum8/Enum16: a name outside the enum's set;
 * - FixedString(N): not exactly N bytes;
 * - any type but Nullable(...): NULL.
 * Other types (String, Float, Decimal, UUID, arrays…) are left to the server, which refuses what it
 * cannot parse (DATA_REJECTED from its error code). LowCardinality(T) follows T.
 */
export type ValueRule = (value: unknown) => string | null;

const INT = /^(U?)Int(8|16|32|64|128|256)$/;
const INTEGER_TEXT = /^-?\d+$/;

function integerOf(value: unknown): bigint | null {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : null;
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) return BigInt(value);
  return null;
}

function integerRule(unsigned: boolean, bits: number): ValueRule {
  const min = unsigned ? 0n : -(1n << BigInt(bits - 1));
  const max = unsigned ? (1n << BigInt(bits)) - 1n : (1n << BigInt(bits - 1)) - 1n;
  const type = `${unsigned ? 'U' : ''}Int${bits}`;
  return (value) => {
    const n = integerOf(value);
    if (n === null) return `${type} takes whole numbers only`;
    return n < min || n > max ? `${type} takes ${min}..${max} (the server would wrap it)` : null;
  };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

function realDate(year: number, month: number, day: number): boolean {
  if (year < 1970 || year > 2105 || month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const dateRule: ValueRule = (value) => {
  const m = typeof value === 'string' ? DATE.exec(value) : null;
  if (!m) return 'Date takes YYYY-MM-DD text';
  return realDate(Number(m[1]), Number(m[2]), Number(m[3]))
    ? null
    : 'Date takes a real calendar date in 1970-01-01..2105-12-31 (the server would shift it)';
};

const dateTimeRule: ValueRule = (value) => {
  const m = typeof value === 'string' ? DATE_TIME.exec(value) : null;
  if (!m) return "DateTime takes 'YYYY-MM-DD hh:mm:ss' text";
  const [h, min, s] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (!realDate(Number(m[1]), Number(m[2]), Number(m[3])) || h > 23 || min > 59 || s > 59)
    return 'DateTime takes a real date and time of day (00:00:00..23:59:59) in 1970..2105 (the server would roll it over)';
  return null;
};

/** The names of `Enum8('a' = 1, 'b\'c' = 2)`, unescaped. */
export function enumNames(type: string): string[] {
  const names: string[] = [];
  for (const m of type.matchAll(/'((?:[^'\\]|\\.)*)'\s*=\s*-?\d+/g))
    names.push(m[1]!.replace(/\\(.)/g, '$1'));
  return names;
}

function enumRule(type: string): ValueRule {
  const names = new Set(enumNames(type));
  return (value) =>
    typeof value === 'string' && names.has(value)
      ? null
      : `${type.slice(0, 6)} takes one of its ${names.size} names`;
}

function fixedStringRule(n: number): ValueRule {
  return (value) => {
    const bytes =
      typeof value === 'string'
        ? Buffer.byteLength(value, 'utf8')
        : value instanceof Uint8Array
          ? value.length
          : -1;
    return bytes === n
      ? null
      : `FixedString(${n}) takes exactly ${n} bytes (the server pads or refuses others)`;
  };
}

function unwrap(type: string, wrapper: string): string | null {
  return type.startsWith(`${wrapper}(`) && type.endsWith(')') ? type.slice(wrapper.length + 1, -1) : null;
}

/** The rule of a column of ClickHouse type `type` (as system.columns spells it); null: left to the server. */
export function valueRule(type: string): ValueRule | null {
  const low = unwrap(type, 'LowCardinality');
  if (low !== null) return valueRule(low);
  const nullable = unwrap(type, 'Nullable');
  if (nullable !== null) {
    const inner = valueRule(nullable);
    return inner && ((value) => (value === null || value === undefined ? null : inner(value)));
  }
  const base = baseRule(type);
  return (value) =>
    value === null || value === undefined ? `${type} is not Nullable` : (base?.(value) ?? null);
}

function baseRule(type: string): ValueRule | null {
  const int = INT.exec(type);
  if (int) return integerRule(int[1] === 'U', Number(int[2]));
  if (type === 'Date') return dateRule;
  if (type === 'DateTime' || /^DateTime\('.*'\)$/.test(type)) return dateTimeRule;
  if (type.startsWith('Enum8(') || type.startsWith('Enum16(')) return enumRule(type);
  const fixed = /^FixedString\((\d+)\)$/.exec(type);
  if (fixed) return fixedStringRule(Number(fixed[1]));
  return null;
}
