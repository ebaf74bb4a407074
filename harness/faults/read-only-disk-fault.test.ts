import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../evidence/evidence-types.ts';
import type { JournalFileReading } from '../routes/route.ts';
import { readOnlyRefusedCheck, untouchedCheck } from './read-only-disk-fault.ts';

const dir = mkdtempSync(join(tmpdir(), 'dpone-read-only-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const attempt = (exit: number | null, code?: string): AttemptRecord =>
  ({ role: 'refused', exit_code: exit, ...(code ? { error_code: code } : {}) }) as AttemptRecord;

function stderrWith(error: { message: string; hint: string }): string {
  const file = join(dir, `stderr-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, `progress line\n${JSON.stringify({ error })}\n`);
  return file;
}

describe('storage-read-only-refused', () => {
  const path = '/cell/journal.db';
  const good = stderrWith({
    message: `--journal names a file this process may not write (EROFS): ${path}`,
    hint: 'its file system is mounted read-only: remount it read-write (or name another file), then retry',
  });

  it('PASSes exit 31 naming the file, EROFS (or …_READONLY) and how to lift it; and a completed attempt', () => {
    expect(
      readOnlyRefusedCheck(attempt(31, 'DPONE_PERMISSION_DENIED'), 'journal', [path], good).verdict,
    ).toBe('PASS');
    expect(readOnlyRefusedCheck(attempt(0), 'target', [path], good).verdict).toBe('PASS');
  });

  it('FAILs 10 "locked", 11 "retry", and a 31 that names no file, no cause or no way to lift it', () => {
    expect(
      readOnlyRefusedCheck(attempt(10, 'DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE'), 'journal', [path], good),
    ).toMatchObject({ verdict: 'FAIL', detail: expect.stringMatching(/exited 10 .* not 31/) });
    expect(
      readOnlyRefusedCheck(attempt(11, 'DPONE_TARGET_UNAVAILABLE'), 'target', [path], good).verdict,
    ).toBe('FAIL');
    const noFile = stderrWith({
      message: 'a file may not be written (EROFS)',
      hint: 'remount it read-write',
    });
    const noCause = stderrWith({ message: `cannot write ${path}`, hint: 'remount it read-write' });
    const noLift = stderrWith({ message: `cannot write ${path} (EROFS)`, hint: 'retry later' });
    for (const file of [noFile, noCause, noLift])
      expect(
        readOnlyRefusedCheck(attempt(31, 'DPONE_PERMISSION_DENIED'), 'journal', [path], file).verdict,
      ).toBe('FAIL');
  });
});

describe('storage-read-only-untouched', () => {
  const entry = (lease: unknown): JournalFileReading => ({
    kind: 'entry',
    entry: JSON.stringify({ state: 'PREPARED', lease }),
    state: 'PREPARED',
    leaseHeld: lease !== null,
  });
  const old = { holder: 'first', epoch: 1 };
  const refused = attempt(31, 'DPONE_PERMISSION_DENIED');
  const same = { before: 'a', after: 'a' };

  it('PASSes when the target kept its rows, the journal reads whole and the only lease is the killed attempt’s', () => {
    expect(
      untouchedCheck(refused, same, { whole: true, before: entry(old), after: entry(old) }).verdict,
    ).toBe('PASS');
    expect(
      untouchedCheck(refused, same, { whole: true, before: entry(old), after: entry(null) }).verdict,
    ).toBe('PASS');
  });

  it('FAILs a changed target, a journal that does not read whole, and a lease the refused attempt left', () => {
    const journal = { whole: true, before: entry(old), after: entry(old) };
    expect(untouchedCheck(refused, { before: 'a', after: 'b' }, journal).detail).toMatch(
      /changed the target/,
    );
    expect(untouchedCheck(refused, same, { ...journal, whole: false }).verdict).toBe('FAIL');
    expect(
      untouchedCheck(refused, same, {
        whole: true,
        before: entry(old),
        after: entry({ holder: 'refused', epoch: 2 }),
      }).detail,
    ).toMatch(/left a lease of its own/);
  });
});
