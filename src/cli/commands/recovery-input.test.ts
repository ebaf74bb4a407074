import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedJournalUrl } from '../embedded-journal.test-support.ts';
import { embeddedEngine } from '../engine-roles.ts';
import { openJournal } from '../journal-url.ts';
import { dpone } from './example-workload.test-support.ts';

/**
 * Issue 14, rows 8 and 10, through the real CLI: what an operator types into a recovery record is
 * checked, and what a journal holds is never printed raw to a terminal.
 */

const OP = `sha256:${'ab'.repeat(32)}`;
const ESC_TITLE = '\u001b]0;pwned\u0007';
const CSI_C1 = '\u009b2J';
const RLO = '\u202e';

/** A journal entry carrying terminal control text, as an older version or another tool could write. */
async function hostileJournal(): Promise<{ dir: string; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-hostile-journal-'));
  const path = join(dir, 'journal.db');
  await using journal = await openJournal(embeddedJournalUrl(path), { cwd: dir, env: {} });
  await journal.createIntent({
    operationId: OP,
    intentDigest: `sha256:${'cd'.repeat(32)}`,
    metadata: {
      workload_id: `orders${ESC_TITLE}`,
      target_identity: `${embeddedEngine()[0]}:events${RLO}txt.exe`,
    },
    nowMs: 1_000,
  });
  await journal.acquireLease({
    operationId: OP,
    expectedVersion: 1,
    holder: `h${CSI_C1}`,
    ttlMs: 10,
    nowMs: 1_000,
  });
  return { dir, url: embeddedJournalUrl(path) };
}

/** `apply --action complete-state --expected-version 2` on the hostile journal, plus `extra`. */
function completeState(url: string, ...extra: string[]): string[] {
  const apply = ['recovery', 'target-commit', 'apply', '--operation-id', OP, '--journal', url];
  return [...apply, '--action', 'complete-state', '--expected-version', '2', ...extra];
}

// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('issue 14, row 8: journal text is escaped on every output', () => {
  it.each([[[]], [['--json']]])('inspect %j prints no control or bidi character raw', async (extra) => {
    const { dir, url } = await hostileJournal();
    const result = await dpone(
      ['recovery', 'target-commit', 'inspect', '--operation-id', OP, '--journal', url, ...extra],
      {
        cwd: dir,
      },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(RAW);
    if (extra.length === 0) {
      expect(result.stdout).toContain('orders\\u001b]0;pwned\\u0007');
      expect(result.stdout).toContain('h\\u009b2J');
      expect(result.stdout).toContain('events\\u202etxt.exe');
    } else {
      // The same JSON value, with the dangerous characters as \u escapes.
      const view = JSON.parse(result.stdout);
      expect(view.entry.metadata.workload_id).toBe(`orders${ESC_TITLE}`);
      expect(view.entry.lease.holder).toBe(`h${CSI_C1}`);
    }
  });

  it('plan prints no control character raw either', async () => {
    const { dir, url } = await hostileJournal();
    const result = await dpone(
      ['recovery', 'target-commit', 'plan', '--operation-id', OP, '--journal', url],
      { cwd: dir },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).not.toMatch(RAW);
  });

  it.each([
    ['ESC', `ok${ESC_TITLE}`],
    ['C1 CSI', `ok${CSI_C1}`],
    ['a bidi override', `ok${RLO}`],
  ])('apply refuses a --reason holding %s (exit 2), and the journal is unchanged', async (_label, reason) => {
    const { dir, url } = await hostileJournal();
    const result = await dpone(completeState(url, '--reason', reason, '--json'), {
      cwd: dir,
      env: { DPONE_PLATFORM_IDENTITY: 'platform:oncall@example.com' },
    });
    expect(result.exitCode).toBe(2);
    expect(JSON.parse(result.stderr).error).toMatchObject({ code: 'DPONE_INVALID_INPUT', field: '--reason' });
    expect(result.stderr).not.toMatch(RAW);
    await using journal = await openJournal(embeddedJournalUrl(join(dir, 'journal.db')), {
      cwd: dir,
      env: {},
    });
    expect((await journal.get(OP))!.version).toBe(2);
  });
});

describe('issue 14, row 10: the actor is a principal name, never a file line or a secret', () => {
  const passwd = 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n';
  it.each([
    ['a passwd file (several lines)', passwd, /exactly one line/],
    ['one passwd line', 'root:x:0:0:root:/root:/bin/bash\n', /principal name kind:name/],
    ['a bare word', 'mallory\n', /principal name kind:name/],
    ['a JWT', 'platform:eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln\n', /looks like a token or a secret/],
    [
      'a GitHub token',
      'platform:ghp_abcdefghijklmnopqrstuvwxyz0123456789\n',
      /looks like a token or a secret/,
    ],
    ['a hex secret', `platform:${'0123456789abcdef'.repeat(3)}\n`, /looks like a token or a secret/],
    ['a random-looking run', 'platform:Xk9fQ2mZ7pL4vR8tW1yB6nC3\n', /looks like a token or a secret/],
  ])(
    '--identity-file holding %s is refused (exit 2), the journal unchanged',
    async (_label, content, message) => {
      const { dir, url } = await hostileJournal();
      const file = join(dir, 'identity');
      writeFileSync(file, content);
      const result = await dpone(completeState(url, '--identity-file', file, '--json'), { cwd: dir });
      expect(result.exitCode, result.stderr).toBe(2);
      const error = JSON.parse(result.stderr).error;
      expect(error).toMatchObject({ code: 'DPONE_INVALID_INPUT', field: '--identity-file' });
      expect(error.message).toMatch(message);
      // The refused value is never echoed: it may be the secret.
      expect(result.stderr).not.toContain(content.trim().split('\n')[0]!.split(':').at(-1));
    },
  );

  it('the same rules hold for DPONE_PLATFORM_IDENTITY; an identity file FIFO or /dev/zero is refused, not read', async () => {
    const { dir, url } = await hostileJournal();
    const apply = (env: Record<string, string>, extra: string[] = []) =>
      dpone(completeState(url, ...extra), { cwd: dir, env });
    expect(
      (await apply({ DPONE_PLATFORM_IDENTITY: 'platform:ghp_abcdefghijklmnopqrstuvwxyz0123456789' }))
        .exitCode,
    ).toBe(2);
    expect((await apply({ DPONE_PLATFORM_IDENTITY: 'root:x:0:0:root:/root:/bin/bash' })).exitCode).toBe(2);
    const zero = await apply({}, ['--identity-file', '/dev/zero']);
    expect(zero.exitCode).toBe(25);
    expect(zero.stderr).toMatch(/not a regular file/);
  });
});
