/**
 * One canonical text form per dataset column type, so a value read by one engine's reader (the
 * source's) compares exactly with the same value read by another's (the target's). Every reader
 * hands its driver's raw value to `canonicalValue`; parity compares the results. A raw value that
 * is not a valid value of the type does not throw: it gets a form no valid value has
 * (`!<type>:<raw>`), so parity fails instead of a checker crashing.
 *
 * Forms (null stays null; text is never normalised — NFC and NFD, '' and NULL stay different):
 * - integer   decimal digits, optional `-`, no leading zeros, exact beyond 2^53 (`-0` is `0`);
 * - text      the string exactly;
 * - date      `YYYY-MM-DD`;
 * - double    the shortest text that reads back as the same IEEE double (JavaScript's String);
 * - decimal   digits with `.` only when a fractional digit is not zero, no trailing zeros
 *             (`12.50` and `12.5` are one value; scale is the column's business, not the value's);
 * - timestamp the instant in UTC, `YYYY-MM-DDTHH:MM:SS.ffffffZ` (microseconds; a zone-less text
 *             is read as UTC, any offset is applied).
 */
export const DATASET_TYPES = ['integer', 'text', 'date', 'double', 'decimal', 'timestamp'] as const;
export type DatasetType = (typeof DATASET_TYPES)[number];

/** What a driver may hand back for one value. */
export type RawValue = string | number | bigint | boolean | Uint8Array | null | undefined;

/** A dataset value in its canonical form (see above). */
export type CanonicalValue = string | null;

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function invalid(type: DatasetType, raw: RawValue): string {
  const text = raw instanceof Uint8Array ? `bytes:${Buffer.from(raw).toString('hex')}` : String(raw);
  return `!${type}:${text}`;
}

function integerForm(raw: RawValue): string | null {
  if (typeof raw === 'bigint') return raw.toString();
  if (typeof raw === 'number') return Number.isSafeInteger(raw) ? String(raw) : null;
  if (typeof raw !== 'string' || !INTEGER.test(raw)) return null;
  return BigInt(raw).toString();
}

function doubleForm(raw: RawValue): string | null {
  if (typeof raw === 'number') return Number.isFinite(raw) ? String(raw) : null;
  if (typeof raw === 'bigint') return String(Number(raw));
  if (typeof raw !== 'string' || raw.trim() === '') return null;
  const value = Number(raw);
  return Number.isFinite(value) ? String(value) : null;
}

function decimalForm(raw: RawValue): string | null {
  const text = typeof raw === 'bigint' ? raw.toString() : typeof raw === 'string' ? raw.trim() : null;
  const match = text === null ? null : DECIMAL.exec(text);
  if (!match || (match[2] === '' && (match[3] ?? '') === '')) return null;
  const whole = (match[2] ?? '').replace(/^0+(?=\d)/, '') || '0';
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  const magnitude = fraction === '' ? whole : `${whole}.${fraction}`;
  return match[1] === '-' && magnitude !== '0' ? `-${magnitude}` : magnitude;
}

/** Dates already checked: a partition repeats a few days a million times (bounded, cleared when full). */
const checkedDates = new Map<string, boolean>();
const CHECKED_DATES_LIMIT = 4096;

function dateForm(raw: RawValue): string | null {
  if (typeof raw !== 'string') return null;
  let valid = checkedDates.get(raw);
  if (valid === undefined) {
    const date = DATE.test(raw) ? new Date(`${raw}T00:00:00Z`) : null;
    valid = date !== null && !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === raw;
    if (checkedDates.size >= CHECKED_DATES_LIMIT) checkedDates.clear();
    checkedDates.set(raw, valid);
  }
  return valid ? raw : null;
}

/**
 * A timestamp's instant to the second, in UTC (`YYYY-MM-DDTHH:MM:SS`), by the text's date, time and
 * zone (null: not a date). A cell's rows repeat a few of these a million times with other
 * microseconds (cell-instants.ts), and building a Date for each was the largest part of a
 * 1,000,000-row cell's canonical values (bounded, cleared when full, as checkedDates).
 */
const utcSeconds = new Map<string, string | null>();
const UTC_SECONDS_LIMIT = 4096;

function utcSecondsOf(y: string, mo: string, d: string, h: string, mi: string, s: string, zone: string) {
  const key = `${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`;
  let seconds = utcSeconds.get(key);
  if (seconds === undefined) {
    seconds = null;
    const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    if (!Number.isNaN(base)) {
      let offsetMinutes = 0;
      if (zone.toUpperCase() !== 'Z') {
        const digits = zone.replace(':', '');
        offsetMinutes =
          (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || '0')) * (zone[0] === '-' ? -1 : 1);
      }
      const instant = new Date(base - offsetMinutes * 60_000);
      if (!Number.isNaN(instant.getTime())) seconds = instant.toISOString().slice(0, 19);
    }
    if (utcSeconds.size >= UTC_SECONDS_LIMIT) utcSeconds.clear();
    utcSeconds.set(key, seconds);
  }
  return seconds;
}

function timestampForm(raw: RawValue): string | null {
  const match = typeof raw === 'string' ? TIMESTAMP.exec(raw.trim()) : null;
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction = '', zone = 'Z'] = match;
  const seconds = utcSecondsOf(y!, mo!, d!, h!, mi!, s!, zone);
  // Six digits, truncated or zero-padded: the microseconds exactly as written.
  return seconds === null ? null : `${seconds}.${(fraction + '000000').slice(0, 6)}Z`;
}

const FORMS: Readonly<Record<DatasetType, (raw: RawValue) => string | null>> = {
  integer: integerForm,
  text: (raw) => (typeof raw === 'string' ? raw : null),
  date: dateForm,
  double: doubleForm,
  decimal: decimalForm,
  timestamp: timestampForm,
};

/** The canonical form of `raw` as a value of `type` (see the file comment). */
export function canonicalValue(type: DatasetType, raw: RawValue): CanonicalValue {
  if (raw === null || raw === undefined) return null;
  return FORMS[type](raw) ?? invalid(type, raw);
}
