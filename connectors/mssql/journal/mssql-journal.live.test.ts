import { describe, expect, it } from 'vitest';
import { describeJournalConformance } from '../../../testing/journal-conformance.ts';
import { MssqlJournal } from './mssql-journal.ts';

/**
 * The journal conformance suite against a real SQL Server, e.g.
 *   DPONE_MSSQL_URL='mssql://sa@127.0.0.1:1433/master?encrypt=false' DPONE_JOURNAL_PASSWORD=… npx vitest run connectors/mssql/journal
 * Without DPONE_MSSQL_URL no server exists to test against: the suite is skipped and says UNVERIFIED.
 */
const url = process.env.DPONE_MSSQL_URL;
const skipReason =
  url === undefined || url === ''
    ? 'UNVERIFIED: no SQL Server given (set DPONE_MSSQL_URL to run the MSSQL journal live)'
    : undefined;

describeJournalConformance(
  'mssql',
  async () => {
    // Tests share one database; the suite gives every test its own operation ids.
    const journal = await MssqlJournal.open(url!, process.env.DPONE_JOURNAL_PASSWORD || undefined);
    return { journal, url: url!, [Symbol.asyncDispose]: () => journal.close() };
  },
  skipReason !== undefined ? { skipReason } : { leaseOnCreate: true },
);

describe('mssql journal live check without a server', () => {
  it.runIf(skipReason !== undefined)('is reported UNVERIFIED, never as a pass', () => {
    expect(skipReason).toMatch(/^UNVERIFIED: /);
  });
});
