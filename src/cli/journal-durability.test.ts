import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import { describeJournal } from './journal-durability.ts';

describe('describeJournal: where a run’s journal is and whether it outlives the worker', () => {
  it('a sqlite file is durable only when its URL says ?durability=shared', () => {
    expect(describeJournal('sqlite:state/journal.db', '/work')).toMatchObject({
      kind: 'sqlite',
      location: 'sqlite:///work/state/journal.db',
      durable: false,
      reason: expect.stringMatching(/can be lost with the worker/),
    });
    expect(describeJournal('sqlite:///mnt/shared/journal.db?durability=shared', '/work')).toMatchObject({
      location: 'sqlite:///mnt/shared/journal.db',
      durable: true,
    });
    expect(describeJournal('sqlite:///mnt/j.db?durability=local', '/work').durable).toBe(false);
  });

  it('a server journal is durable, and its location carries neither user nor password nor options', () => {
    const pg = describeJournal('postgres://etl:hunter2@db.internal:5432/dpone?schema=journal', '/work');
    expect(pg).toMatchObject({
      kind: 'postgres',
      location: 'postgres://db.internal:5432/dpone',
      durable: true,
    });
    expect(JSON.stringify(pg)).not.toMatch(/etl|hunter2|schema/);
    expect(describeJournal('sqlserver://sa@sql:1433/j', '/work')).toMatchObject({
      kind: 'mssql',
      durable: true,
    });
    expect(describeJournal('memory:', '/work')).toMatchObject({ kind: 'memory', durable: false });
  });

  it('a bad durability value is bad input naming the field', () => {
    let error: unknown;
    try {
      describeJournal('sqlite:j.db?durability=forever', '/work', 'journal');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: ERROR_CODES.INVALID_INPUT, fields: { field: 'journal' } });
  });
});
