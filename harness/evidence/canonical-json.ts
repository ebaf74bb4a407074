import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';

/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, `undefined` members dropped (as
 * JSON.stringify does), arrays in order. Two values that JSON-serialise to the same data give the
 * same text whatever their key order, so a digest over it is stable.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new DponeError(ERROR_CODES.INVALID_INPUT, 'canonical JSON cannot hold a non-finite number');
    }
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  }
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new DponeError(ERROR_CODES.INVALID_INPUT, `canonical JSON cannot hold a ${typeof value}`);
}
