import type { TargetFirstDifference } from '../evidence/evidence-types.ts';
import { canonicalJson } from '../evidence/canonical-json.ts';
import type { CellScalar } from './target-snapshot.ts';

type Row = Readonly<Record<string, CellScalar>>;

interface KeyGroup {
  readonly key: readonly (string | null)[];
  readonly rows: Row[];
}

const INTEGER = /^-?\d+$/;

function text(value: CellScalar | undefined): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : String(value);
}

/** Key order, part by part: NULL first, integers by value (exact beyond 2^53), else by code unit. */
export function compareKeys(a: readonly (string | null)[], b: readonly (string | null)[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    if (INTEGER.test(x) && INTEGER.test(y)) return BigInt(x) < BigInt(y) ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

function groups(rows: readonly Row[], naturalKey: readonly string[]): Map<string, KeyGroup> {
  const out = new Map<string, KeyGroup>();
  for (const row of rows) {
    const key = naturalKey.map((column) => text(row[column]));
    const id = canonicalJson(key);
    const group = out.get(id);
    if (group) group.rows.push(row);
    else out.set(id, { key, rows: [row] });
  }
  return out;
}

/** One column's values over a group, as a sorted multiset (canonical JSON, so 1 and '1' differ). */
function values(rows: readonly Row[], column: string): string {
  return rows
    .map((row) => canonicalJson(project(row, [column])[column] ?? null))
    .sort()
    .join('\n');
}

/** The columns whose values differ between two equally large groups of one key; none when equal. */
function differingColumns(target: readonly Row[], expected: readonly Row[], columns: readonly string[]) {
  const differing = columns.filter((column) => values(target, column) !== values(expected, column));
  if (differing.length > 0 || target.length < 2) return differing;
  // Same values per column but paired differently across a repeated key's rows.
  const whole = (rows: readonly Row[]) =>
    rows
      .map((row) => canonicalJson(project(row, columns)))
      .sort()
      .join('\n');
  return whole(target) === whole(expected) ? [] : [...columns];
}

function project(row: Row, columns: readonly string[]): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const column of columns) {
    const value = row[column];
    out[column] = typeof value === 'bigint' ? String(value) : (value ?? null);
  }
  return out;
}

/**
 * The first natural key, in key order, at which the target's rows differ from the rows it must
 * hold (both in the form parity compares: comparableRow), or undefined when they are equal. Reads
 * values to compare them; returns only the key and column names.
 */
export function firstDifference(
  target: readonly Row[],
  expected: readonly Row[],
  naturalKey: readonly string[],
  columns: readonly string[],
): TargetFirstDifference | undefined {
  const got = groups(target, naturalKey);
  const want = groups(expected, naturalKey);
  const keys = [...new Map([...want, ...got]).values()].map((group) => group.key).sort(compareKeys);
  for (const key of keys) {
    const id = canonicalJson(key);
    const inTarget = got.get(id)?.rows ?? [];
    const inExpected = want.get(id)?.rows ?? [];
    const named = Object.fromEntries(naturalKey.map((column, i) => [column, key[i] ?? null]));
    if (inExpected.length === 0) return { key: named, kind: 'extra' };
    if (inTarget.length < inExpected.length) return { key: named, kind: 'missing' };
    if (inTarget.length > inExpected.length) return { key: named, kind: 'duplicate' };
    const differing = differingColumns(inTarget, inExpected, columns);
    if (differing.length > 0) return { key: named, kind: 'value', columns: differing };
  }
  return undefined;
}

/** One line for a check detail or a report: `id=17: value differs in amount, price`. */
export function describeDifference(difference: TargetFirstDifference): string {
  const key = Object.entries(difference.key)
    .map(([column, value]) => `${column}=${value === null ? 'NULL' : value}`)
    .join(', ');
  const how: Record<TargetFirstDifference['kind'], string> = {
    missing: 'missing from the target',
    extra: 'in the target, not expected',
    duplicate: 'duplicated in the target',
    value: `value differs in ${(difference.columns ?? []).join(', ')}`,
  };
  return `${key}: ${how[difference.kind]}`;
}
