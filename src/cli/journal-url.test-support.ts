import { tmpdir } from 'node:os';
import { expect } from 'vitest';
import type { DponeError } from '../contracts/errors.ts';
import { ERROR_CODES } from '../contracts/errors.ts';
import { dponeRejection } from '../../testing/journal-conformance-kit.ts';
import { JOURNAL_PASSWORD_ENV, openJournal } from './journal-url.ts';

/**
 * Test support for `--journal` URLs opened through the CLI's journal opener (journal-url.ts): the
 * engine-neutral tests beside it and each engine folder's tests of its own URLs share these.
 */

/** The password the tests put in URLs and the environment: no error may show it. */
export const JOURNAL_SECRET = 'hunter2-secret';

/** Asserts `url` is refused as bad input naming --journal, its error never showing the secret. */
export async function expectRefusedJournalUrl(url: string, cwd = tmpdir()): Promise<void> {
  const error = await dponeRejection(openJournal(url, { cwd, env: {} }));
  expect([error.code, error.fields.field], url).toEqual([ERROR_CODES.INVALID_INPUT, '--journal']);
  expect(JSON.stringify(error.toJSON())).not.toContain(JOURNAL_SECRET);
}

/**
 * What opening the server journal `url` (a closed local port: nothing listens on 127.0.0.1:1)
 * answers, its password in DPONE_JOURNAL_PASSWORD: the error, and all it shows (message and JSON).
 */
export async function closedPortAnswer(url: string): Promise<{ error: DponeError; shown: string }> {
  const error = await dponeRejection(
    openJournal(url, { cwd: tmpdir(), env: { [JOURNAL_PASSWORD_ENV]: JOURNAL_SECRET } }),
  );
  return { error, shown: `${error.message} ${JSON.stringify(error)}` };
}
