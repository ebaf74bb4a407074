import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { PinnedSettings } from './postgres-settings.ts';
import { beginPinned, beginSql, pinnedValues, settingNotHeld } from './postgres-settings.ts';

const PINNED: PinnedSettings = {
  field: 'source.url',
  timeoutMs: 2500,
  searchPath: 'dw',
  values: true,
  durableCommit: 'remote_apply',
};

describe('postgres pinned settings', () => {
  it('sets every value setting, the timeouts and the schema locally; writes also synchronous_commit', () => {
    const sql = beginSql(PINNED, 'read-write');
    expect(sql.startsWith('BEGIN; ')).toBe(true);
    for (const set of [
      "SET LOCAL DateStyle = 'ISO, MDY'",
      "SET LOCAL extra_float_digits = '3'",
      "SET LOCAL TimeZone = 'UTC'",
      "SET LOCAL statement_timeout = '2500'",
      "SET LOCAL lock_timeout = '2500'",
      "SET LOCAL search_path = 'dw'",
      "SET LOCAL synchronous_commit = 'remote_apply'",
    ])
      expect(sql).toContain(set);
    expect(sql).toMatch(/SELECT name, setting, .* AS now_ms FROM pg_settings WHERE name IN \(/);
    const readOnly = beginSql(PINNED, 'read-only');
    expect(readOnly.startsWith('BEGIN READ ONLY; ')).toBe(true);
    expect(readOnly).not.toContain('synchronous_commit');
  });

  it('names the first setting the read-back does not show as set', () => {
    const expected = pinnedValues(PINNED, 'read-only');
    const rows = [...expected].map(([name, setting]) => ({ name, setting }));
    expect(settingNotHeld(expected, rows)).toBeNull();
    const dmy = rows.map((row) => (row.name === 'DateStyle' ? { ...row, setting: 'SQL, DMY' } : row));
    expect(settingNotHeld(expected, dmy)).toBe('DateStyle');
    expect(settingNotHeld(expected, rows.slice(1))).toBe(rows[0]!.name);
  });

  it('refuses with exit-2 input error naming the field, the setting and the pooler, and rolls back', async () => {
    const sent: string[] = [];
    const client = {
      query: async (text: string) => {
        sent.push(text);
        // What a proxy that swallowed the SETs would answer: the role's own DateStyle.
        return [{ rows: [] }, { rows: [{ name: 'DateStyle', setting: 'SQL, DMY' }] }] as never;
      },
    };
    await expect(beginPinned(client, PINNED, 'read-only')).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: 'source.url', hint: expect.stringContaining('pool_mode') },
      message: expect.stringContaining('DateStyle'),
    });
    expect(sent.at(-1)).toBe('ROLLBACK');
  });

  it('a pooler in statement mode (FATAL 08P01 on BEGIN) is exit 2 naming the pool mode, not a retry', async () => {
    const refusal = Object.assign(new Error('transaction blocks not allowed in statement pooling mode'), {
      code: '08P01',
      severity: 'FATAL',
    });
    const client = { query: async () => Promise.reject(refusal) };
    await expect(beginPinned(client, PINNED, 'read-write')).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: {
        field: 'source.url',
        sqlstate: '08P01',
        hint: expect.stringContaining('pool_mode = statement'),
      },
    });
    const other = Object.assign(new Error('x'), { code: '57P01', severity: 'FATAL' });
    await expect(beginPinned({ query: async () => Promise.reject(other) }, PINNED, 'read-only')).rejects.toBe(
      other,
    );
  });
});
