import { describe, expect, it } from 'vitest';
import { casStatement, expireStatement, leaseStatement, readWithClock } from './postgres-journal-cas.ts';
import { POSTGRES_JOURNAL_READY, POSTGRES_JOURNAL_SCHEMA, inSchema } from './postgres-journal-schema.ts';

describe('the PostgreSQL journal behind a pooler', () => {
  it('names its schema in the SQL (no search_path to set), tables and function but never trigger names', () => {
    const ready = inSchema(POSTGRES_JOURNAL_READY, 'tenant_1');
    expect(ready).toContain("to_regclass('tenant_1.dpone_commit_journal')");
    expect(ready).toContain("to_regclass('tenant_1.dpone_commit_journal_history')");
    expect(ready).toContain("tgname = 'dpone_commit_journal_history_no_change'");
    const schema = inSchema(POSTGRES_JOURNAL_SCHEMA, 'tenant_1');
    expect(schema).toContain('CREATE TABLE IF NOT EXISTS tenant_1.dpone_commit_journal (');
    expect(schema).toContain('FUNCTION tenant_1.dpone_commit_journal_history_append_only()');
    expect(schema).toContain('ON tenant_1.dpone_commit_journal_history');
    // The checksum functions are the schema's own; trigger names stay bare.
    expect(schema).toContain(
      'FUNCTION tenant_1.dpone_commit_journal_seal_of(r tenant_1.dpone_commit_journal)',
    );
    expect(schema).toContain('FUNCTION tenant_1.dpone_commit_journal_history_seal_row()');
    expect(schema).toContain(
      'CREATE TRIGGER dpone_commit_journal_sealed BEFORE INSERT OR UPDATE ON tenant_1.dpone_commit_journal\n',
    );
    expect(ready).toContain("tgname = 'dpone_commit_journal_sealed'");
    expect(schema).not.toMatch(/[^.]\bdpone_commit_journal \(/);
    expect(inSchema(POSTGRES_JOURNAL_SCHEMA, undefined)).toBe(POSTGRES_JOURNAL_SCHEMA);
  });

  it('uses unnamed statements only (a named one is 42P05 on another client’s server connection) and sets synchronous_commit', () => {
    for (const clock of ['server', 'caller'] as const) {
      for (const statement of [casStatement(clock), leaseStatement(clock), expireStatement(clock)]) {
        expect(Object.keys(statement)).toEqual(['text']);
        expect(statement.text).toMatch(/set_config\('synchronous_commit', \$\d+::text, true\)/);
      }
      expect(Object.keys(readWithClock(clock))).toEqual(['text']);
    }
  });
});
