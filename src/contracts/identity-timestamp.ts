import { invalidInput } from './errors.ts';

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * Normalises one timestamp to UTC `YYYY-MM-DDTHH:MM:SS.mmmZ`. Accepted: `YYYY-MM-DDTHH:MM`, optional
 * `:SS` and `.fraction` (1-9 digits), then `Z` or an offset `±HH:MM` / `±HHMM`. Refused: no zone, a
 * date alone, a day or time that does not exist (Feb 30, 24:00, leap second :60), and fractions
 * finer than a millisecond, which would otherwise be truncated and merge two distinct intervals.
 */
export function normalizeTimestamp(value: string, field: string): string {
  const match = TIMESTAMP.exec(value);
  if (!match) {
    const hint = /^\d{4}-\d{2}-\d{2}(T[\d:.]+)?$/.test(value)
      ? ' with a time zone (Z or ±hh:mm)'
      : ' (YYYY-MM-DDTHH:MM[:SS[.fff]] and Z or ±hh:mm)';
    throw invalidInput(`${field} must be an ISO-8601 timestamp${hint}`, { field });
  }
  const [, y, mo, d, h, mi, s = '00', fraction = '', zone, sign, oh = '00', om = '00'] = match;
  const year = Number(y);
  const month = Number(mo);
  const inRange =
    month >= 1 &&
    month <= 12 &&
    Number(d) >= 1 &&
    Number(d) <= daysInMonth(year, month) &&
    Number(h) <= 23 &&
    Number(mi) <= 59 &&
    Number(s) <= 59 &&
    Number(oh) <= 23 &&
    Number(om) <= 59;
  if (!inRange) throw invalidInput(`${field} is not a valid date and time`, { field });
  if (/[1-9]/.test(fraction.slice(3))) {
    throw invalidInput(`${field} has a precision finer than a millisecond`, { field });
  }
  const millis = fraction.slice(0, 3).padEnd(3, '0');
  const offset = zone === 'Z' ? 'Z' : `${sign}${oh}:${om}`;
  const parsed = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${millis}${offset}`);
  if (Number.isNaN(parsed)) throw invalidInput(`${field} is not a valid date and time`, { field });
  return new Date(parsed).toISOString();
}
