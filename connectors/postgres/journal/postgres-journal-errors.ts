import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { CAUSE_CODES } from '../../../src/contracts/error-causes.ts';
import { serverSqlstate, sqlstateCause } from '../postgres-sqlstate.ts';

const HINTS: Readonly<Record<keyof typeof CAUSE_CODES, string>> = {
  authentication:
    'the server refused the journal login: check the user in the journal URL and DPONE_JOURNAL_PASSWORD',
  privilege:
    'the journal role needs USAGE and CREATE on the journal schema to create its two tables once, or a DBA creates them (examples/postgres/setup.sql) and grants SELECT, INSERT, UPDATE on dpone_commit_journal and SELECT, INSERT on dpone_commit_journal_history',
  'missing-object': 'the database (or the ?schema=) named in the journal URL does not exist',
  data: 'the journal refused a value',
};

/**
 * Why the journal could not be opened. Authentication, privilege and a missing database or schema
 * are causes a retry cannot fix, so they get their own code (nothing was mutated: the journal is
 * opened before any source or target I/O). Anything else is JOURNAL_UNAVAILABLE, a retry. The
 * driver's message stays in `cause`; the error carries the SQLSTATE and a hint only.
 */
export function journalOpenFailure(cause: unknown): DponeError {
  const sqlstate = serverSqlstate(cause);
  const kind = sqlstate === undefined ? 'other' : sqlstateCause(sqlstate);
  if (sqlstate !== undefined && kind in CAUSE_CODES) {
    const known = kind as keyof typeof CAUSE_CODES;
    return new DponeError(
      CAUSE_CODES[known],
      'the PostgreSQL commit journal could not be opened; a retry cannot fix this; nothing was mutated',
      { sqlstate, hint: HINTS[known] },
      { cause },
    );
  }
  return new DponeError(
    ERROR_CODES.JOURNAL_UNAVAILABLE,
    'the PostgreSQL commit journal could not be reached or did not answer in time',
    sqlstate === undefined ? {} : { sqlstate },
    { cause },
  );
}
