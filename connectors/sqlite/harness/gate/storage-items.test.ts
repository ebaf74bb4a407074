import { describe, expect, it } from 'vitest';
import type { CellEvidence } from '../../../../harness/evidence/evidence-types.ts';
import {
  ATOMIC_VISIBILITY,
  JOURNAL_CORRUPTION_DETECTED,
  STORAGE_FULL_LEASE,
  STORAGE_FULL_REFUSED,
  STORAGE_READ_ONLY_REFUSED,
  STORAGE_READ_ONLY_UNTOUCHED,
} from '../../../../harness/evidence/check-names.ts';
import { fullDiskItem, journalCorruptionItem, readOnlyDiskItem } from './storage-items.ts';

const CHECKS = {
  'full-disk': [STORAGE_FULL_REFUSED, ATOMIC_VISIBILITY, STORAGE_FULL_LEASE],
  'read-only-disk': [STORAGE_READ_ONLY_REFUSED, STORAGE_READ_ONLY_UNTOUCHED, ATOMIC_VISIBILITY],
  'journal-corruption': [JOURNAL_CORRUPTION_DETECTED],
} as const;
const EXIT = { 'full-disk': 18, 'read-only-disk': 31, 'journal-corruption': 19 } as const;

function cell(
  kind: keyof typeof CHECKS,
  n: number,
  options: { verdict?: string; failing?: string; mutations?: number; exit?: number } = {},
): CellEvidence {
  const names = CHECKS[kind];
  return {
    id: `storage/${kind}/${n}`,
    verdict: options.verdict ?? 'PASS',
    variant: null,
    fault: { kind, storage: n % 2 === 0 ? 'journal' : 'target', point: `cas:P${n}:after`, hit: 1 },
    target: { mutations: options.mutations ?? 1 },
    attempts: [{ role: 'first', exit_code: options.exit ?? EXIT[kind] }],
    checks: names.map((name) => ({ name, verdict: name === options.failing ? 'FAIL' : 'PASS', detail: 'x' })),
  } as unknown as CellEvidence;
}

describe.each([
  ['full-disk', fullDiskItem, STORAGE_FULL_LEASE],
  ['read-only-disk', readOnlyDiskItem, STORAGE_READ_ONLY_UNTOUCHED],
  ['journal-corruption', journalCorruptionItem, JOURNAL_CORRUPTION_DETECTED],
] as const)('the %s gate line', (kind, item, check) => {
  it('is PASS when every cell of the kind PASSed with its checks and one mutation', () => {
    expect(item.evaluate([cell(kind, 1), cell(kind, 2), cell(kind, 3)])).toMatchObject({
      status: 'PASS',
      cells: 3,
    });
  });

  it('is FAIL decided by zero cells, on a failed check, or on a second write', () => {
    expect(item.evaluate([])).toMatchObject({ status: 'FAIL', cells: 0 });
    // Cells of other kinds decide nothing.
    expect(
      item.evaluate([{ ...cell(kind, 1), fault: { kind: 'power-loss' } } as unknown as CellEvidence]),
    ).toMatchObject({
      status: 'FAIL',
      cells: 0,
    });
    expect(item.evaluate([cell(kind, 1), cell(kind, 2, { failing: check })]).status).toBe('FAIL');
    expect(item.evaluate([cell(kind, 1, { mutations: 2, verdict: 'FAIL' })]).status).toBe('FAIL');
    expect(item.evaluate([cell(kind, 1, { mutations: 0 })]).status).toBe('FAIL');
  });

  it('is UNVERIFIED, never PASS, when its cells were UNVERIFIED (no tmpfs, no local journal file)', () => {
    expect(
      item.evaluate([cell(kind, 1), cell(kind, 2, { verdict: 'UNVERIFIED', mutations: 0 })]).status,
    ).toBe('UNVERIFIED');
  });
});

describe('the storage lines', () => {
  it('count the attempts that stopped with the storage code', () => {
    expect(fullDiskItem.evaluate([cell('full-disk', 1), cell('full-disk', 2, { exit: 0 })]).detail).toMatch(
      /2 full-disk cells PASS on the journal and target: 1 stopped with exit 18/,
    );
    expect(
      journalCorruptionItem.evaluate([
        cell('journal-corruption', 1),
        cell('journal-corruption', 2, { exit: 0 }),
      ]).detail,
    ).toMatch(/2 journal-corruption cells PASS: 1 retries met the damage and exited 19/);
    expect(
      readOnlyDiskItem.evaluate([cell('read-only-disk', 1), cell('read-only-disk', 2, { exit: 0 })]).detail,
    ).toMatch(/2 read-only-disk cells PASS on the journal and target: 1 stopped with exit 31/);
  });
});
