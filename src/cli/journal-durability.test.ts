import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import { embeddedEngine, serverJournalEngine } from './engine-roles.ts';
import { describeJournal } from './journal-durability.ts';

/** The engines the URLs name, taken from the engine table: the embedded file journal's and a server's. */
const [FILE] = embeddedEngine();
const [SERVER] = serverJournalEngine();

describe('describeJournal: where a run’s journal is and whether it outlives the worker', () => {
  it('a journal file is durable only when its URL says ?durability=shared', () => {
    expect(describeJournal(`${FILE}:state/journal.db`, '/work')).toMatchObject({
      kind: FILE,
      location: `${FILE}:///work/state/journal.db`,
      durable: false,
      reason: expect.stringMatching(/can be lost with the worker/),
    });
    expect(describeJournal(`${FILE}:///mnt/shared/journal.db?durability=shared`, '/work')).toMatchObject({
      location: `${FILE}:///mnt/shared/journal.db`,
      durable: true,
    });
    expect(describeJournal(`${FILE}:///mnt/j.db?durability=local`, '/work').durable).toBe(false);
  });

  it('a server journal is durable, and its location carries neither user nor password nor options', () => {
    const server = describeJournal(`${SERVER}://etl:hunter2@db.internal:5432/dpone?schema=journal`, '/work');
    expect(server).toMatchObject({
      kind: SERVER,
      location: `${SERVER}://db.internal:5432/dpone`,
      durable: true,
    });
    expect(JSON.stringify(server)).not.toMatch(/etl|hunter2|schema/);
    expect(describeJournal('memory:', '/work')).toMatchObject({ kind: 'memory', durable: false });
  });

  it('a bad durability value is bad input naming the field', () => {
    let error: unknown;
    try {
      describeJournal(`${FILE}:j.db?durability=forever`, '/work', 'journal');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: ERROR_CODES.INVALID_INPUT, fields: { field: 'journal' } });
  });
});
