import { describe, expect, it } from 'vitest';
import { compareKeys, describeDifference, firstDifference } from './first-difference.ts';

const COLUMNS = ['id', 'day', 'label', 'price'];
const KEY = ['id'];

function row(id: string, label: string | null = `secret-${id}`, price = '1.5') {
  return { id, day: '2026-07-05', label, price };
}

const EXPECTED = [row('2'), row('10'), row('3')];

describe('firstDifference', () => {
  it('is undefined when target and expected hold the same rows in any order', () => {
    expect(firstDifference([row('3'), row('2'), row('10')], EXPECTED, KEY, COLUMNS)).toBeUndefined();
  });

  it('missing: an expected key the target lacks', () => {
    expect(firstDifference([row('2'), row('10')], EXPECTED, KEY, COLUMNS)).toEqual({
      key: { id: '3' },
      kind: 'missing',
    });
  });

  it('extra: a key in the target that is not expected', () => {
    expect(firstDifference([...EXPECTED, row('7')], EXPECTED, KEY, COLUMNS)).toEqual({
      key: { id: '7' },
      kind: 'extra',
    });
  });

  it('duplicate: a key the target holds more often than expected', () => {
    expect(firstDifference([...EXPECTED, row('10')], EXPECTED, KEY, COLUMNS)).toEqual({
      key: { id: '10' },
      kind: 'duplicate',
    });
  });

  it('value: names the differing columns, never their values', () => {
    const target = [row('2'), row('3', '', '1.50001'), row('10', 'changed')];
    const found = firstDifference(target, EXPECTED, KEY, COLUMNS);
    expect(found).toEqual({ key: { id: '3' }, kind: 'value', columns: ['label', 'price'] });
    expect(JSON.stringify(found)).not.toMatch(/secret|1\.5|changed/);
    expect(describeDifference(found!)).toBe('id=3: value differs in label, price');
  });

  it('value: NULL and the empty string differ', () => {
    expect(firstDifference([row('2', null)], [row('2', '')], KEY, COLUMNS)).toEqual({
      key: { id: '2' },
      kind: 'value',
      columns: ['label'],
    });
  });

  it('reports the FIRST key in key order (integers by value, beyond 2^53 exactly)', () => {
    const big = '9007199254740993';
    const expected = [row('2'), row('10'), row(big)];
    const target = [row('2', 'x'), row('10', 'y'), row(big, 'z')];
    expect(firstDifference(target, expected, KEY, COLUMNS)?.key).toEqual({ id: '2' });
    const later = [row('2'), row('10', 'y'), row(big, 'z')];
    expect(firstDifference(later, expected, KEY, COLUMNS)?.key).toEqual({ id: '10' });
    expect(firstDifference([row('2'), row('10')], expected, KEY, COLUMNS)).toEqual({
      key: { id: big },
      kind: 'missing',
    });
  });

  it('a composite key compares part by part, NULL first', () => {
    expect(compareKeys(['a', '2'], ['a', '10'])).toBeLessThan(0);
    expect(compareKeys([null, '9'], ['a', '1'])).toBeLessThan(0);
    expect(compareKeys(['b'], ['a'])).toBeGreaterThan(0);
    const key = ['day', 'id'];
    const target = [{ ...row('1'), day: '2026-07-06' }];
    expect(firstDifference(target, [row('1')], key, COLUMNS)).toEqual({
      key: { day: '2026-07-05', id: '1' },
      kind: 'missing',
    });
    expect(describeDifference({ key: { day: null, id: '1' }, kind: 'extra' })).toBe(
      'day=NULL, id=1: in the target, not expected',
    );
  });

  it('rows of a repeated key paired differently are a value difference', () => {
    const expected = [row('1', 'a', '1'), row('1', 'b', '2')];
    const target = [row('1', 'a', '2'), row('1', 'b', '1')];
    expect(firstDifference(target, expected, KEY, COLUMNS)).toEqual({
      key: { id: '1' },
      kind: 'value',
      columns: COLUMNS,
    });
  });
});
