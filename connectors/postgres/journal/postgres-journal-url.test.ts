import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/contracts/errors.ts';
import { closedPortAnswer } from '../../../src/cli/journal-url.test-support.ts';

/** A PostgreSQL journal URL through the CLI (journal-url.ts, journal-durability.ts); no server needed. */
describe('a PostgreSQL journal URL', () => {
  it('postgres:// loads the PostgreSQL adapter lazily; a closed port is its JOURNAL_UNAVAILABLE', async () => {
    const { error, shown } = await closedPortAnswer('postgres://u@127.0.0.1:1/journal');
    expect(error.code).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
    // The PostgreSQL journal itself answered (reached through its engine entry,
    // connectors/postgres/engine.ts), not the generic answer of an adapter that failed without a code.
    expect(error.message).toContain('PostgreSQL commit journal');
    expect(shown).not.toContain('hunter2-secret');
  });
});
