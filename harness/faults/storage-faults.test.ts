import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../evidence/evidence-types.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import type { JournalFileReading } from '../routes/route.ts';
import { fullDiskFault, refusedCheck } from './full-disk-fault.ts';
import { detectedCheck, journalCorruptionFault } from './journal-corruption-fault.ts';

const trace: TraceOccurrence[] = [
  'journal.read:before',
  'journal.create:after',
  'cas:PREPARING->PREPARED:before',
  'target.commit:after',
].map((point) => ({ point, hit: 1 }));
const context = { seed: 42, traces: { clean: trace, recovery: new Map(), cleanDurationMs: 0 } };

const dir = mkdtempSync(join(tmpdir(), 'dpone-storage-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function attempt(exit: number | null, code: string | null = null): AttemptRecord {
  return {
    pid: 1,
    exit_code: exit,
    signal: null,
    duration_ms: 1,
    last_point: null,
    role: 'first',
    error_code: code,
  };
}

/** A stderr file holding the `--json` error line a run prints. */
function stderr(message: string, hint = 'free space on the journal file system, then retry'): string {
  const file = join(dir, `stderr-${Math.random()}`);
  writeFileSync(file, `${JSON.stringify({ error: { code: 'DPONE_STORAGE_FULL', message, hint } })}\n`);
  return file;
}

describe('full-disk plan', () => {
  it('fills the journal, then the target, at every transition point of the clean trace', () => {
    const drafts = fullDiskFault.plan({ kind: 'full-disk' }, context);
    expect(drafts.map((d) => d.localId)).toEqual([
      'journal/journal.create:after#1',
      'journal/cas:PREPARING->PREPARED:before#1',
      'journal/target.commit:after#1',
      'target/journal.create:after#1',
      'target/cas:PREPARING->PREPARED:before#1',
      'target/target.commit:after#1',
    ]);
    expect(drafts.every((d) => d.sensitive === false)).toBe(true);
    expect(fullDiskFault.plan({ kind: 'full-disk', storages: ['target'] }, context)).toHaveLength(3);
  });

  it("fills a server's data directory only where asked, right after each write (the :after points)", () => {
    const drafts = fullDiskFault.plan({ kind: 'full-disk', storages: ['server'] }, context);
    expect(drafts.map((d) => d.localId)).toEqual([
      'server/journal.create:after#1',
      'server/target.commit:after#1',
    ]);
    expect(drafts[0]!.fault).toMatchObject({
      kind: 'full-disk',
      storage: 'server',
      point: 'journal.create:after',
    });
    expect(
      fullDiskFault.plan({ kind: 'full-disk' }, context).some((d) => d.localId.startsWith('server/')),
    ).toBe(false);
  });
});

describe('storage-full-refused', () => {
  const path = '/cells/x/journal.db';
  it('PASSes exit 18 naming the file, an engine …_FULL or ENOSPC and "free space, then retry"; and a completed attempt', () => {
    const file = stderr(`the commit journal ${path} could not be read or written: its disk is full (ENOSPC)`);
    expect(refusedCheck(attempt(18, 'DPONE_STORAGE_FULL'), 'journal', [path], file).verdict).toBe('PASS');
    expect(refusedCheck(attempt(0), 'journal', [path], join(dir, 'none')).verdict).toBe('PASS');
  });

  it('FAILs any other exit (11 unreachable, 12 with no cause, 10 locked), and an 18 that names no file or no cause', () => {
    const none = join(dir, 'none');
    expect(
      refusedCheck(attempt(11, 'DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE'), 'target', [path], none).verdict,
    ).toBe('FAIL');
    expect(
      refusedCheck(attempt(10, 'DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE'), 'journal', [path], none).verdict,
    ).toBe('FAIL');
    const nameless = stderr(
      'the commit journal could not be read or written: its disk is full (ENGINE_FULL)',
    );
    expect(refusedCheck(attempt(18, 'DPONE_STORAGE_FULL'), 'journal', [path], nameless)).toMatchObject({
      verdict: 'FAIL',
      detail: expect.stringContaining('does not name the journal file'),
    });
    const causeless = stderr(`the commit journal ${path} could not be written`);
    expect(refusedCheck(attempt(18, 'DPONE_STORAGE_FULL'), 'journal', [path], causeless).verdict).toBe(
      'FAIL',
    );
  });
});

describe('storage-full-refused under a server', () => {
  const parts = ['Engine target', 'Engine commit journal'];
  const hint = "free space on the disk of the Engine target's server (its data directory), then retry";
  it("PASSes exit 18 naming the server's part and DISK_FULL with the free-space hint", () => {
    const file = stderr(
      "the Engine target could not be written: its server's disk is full (DISK_FULL)",
      hint,
    );
    expect(refusedCheck(attempt(18, 'DPONE_STORAGE_FULL'), 'server', parts, file)).toMatchObject({
      verdict: 'PASS',
      detail: expect.stringContaining("naming the server's part"),
    });
  });

  it('FAILs the retry code a full disk got before (11, 12), and an 18 naming no part or no cause', () => {
    const none = join(dir, 'none');
    expect(
      refusedCheck(attempt(12, 'DPONE_TARGET_COMMIT_PRE_COMMIT_FAILED'), 'server', parts, none).verdict,
    ).toBe('FAIL');
    const nameless = stderr('the server could not be written: its disk is full (DISK_FULL)', hint);
    expect(refusedCheck(attempt(18, 'DPONE_STORAGE_FULL'), 'server', parts, nameless)).toMatchObject({
      verdict: 'FAIL',
      detail: expect.stringContaining("does not name the server's part"),
    });
    const causeless = stderr('the Engine target could not be written', hint);
    expect(refusedCheck(attempt(18, 'DPONE_STORAGE_FULL'), 'server', parts, causeless).verdict).toBe('FAIL');
  });
});

describe('journal-corruption plan', () => {
  it('damages the journal in each shape at every transition point, each cell with its own fixed seed', () => {
    const drafts = journalCorruptionFault.plan({ kind: 'journal-corruption' }, context);
    expect(drafts.map((d) => d.localId)).toEqual(
      ['rows', 'header', 'truncation'].flatMap((shape) => [
        `${shape}/journal.create:after#1`,
        `${shape}/cas:PREPARING->PREPARED:before#1`,
        `${shape}/target.commit:after#1`,
      ]),
    );
    // A server journal's shape is asked for by name only, with the same points and its own seeds.
    expect(drafts.some((d) => d.localId.startsWith('fields/'))).toBe(false);
    const fields = journalCorruptionFault.plan({ kind: 'journal-corruption', shapes: ['fields'] }, context);
    expect(fields.map((d) => d.localId)).toEqual([
      'fields/journal.create:after#1',
      'fields/cas:PREPARING->PREPARED:before#1',
      'fields/target.commit:after#1',
    ]);
    const seeds = drafts.map((d) => d.params.seed);
    expect(new Set(seeds).size).toBe(drafts.length);
    expect(
      journalCorruptionFault.plan({ kind: 'journal-corruption' }, context).map((d) => d.params.seed),
    ).toEqual(seeds);
  });
});

describe('journal-corruption-detected', () => {
  const before: JournalFileReading = {
    kind: 'entry',
    entry: '{"state":"PREPARED"}',
    state: 'PREPARED',
    leaseHeld: true,
  };
  const corrupt: JournalFileReading = { kind: 'error', code: 'DPONE_TARGET_COMMIT_JOURNAL_CORRUPT' };
  const absent: JournalFileReading = { kind: 'absent' };
  it('requires 19 JOURNAL_CORRUPT when a reader meets the damage', () => {
    expect(
      detectedCheck(attempt(19, 'DPONE_TARGET_COMMIT_JOURNAL_CORRUPT'), corrupt, before, 'x').verdict,
    ).toBe('PASS');
    expect(detectedCheck(attempt(0), corrupt, before, 'x').verdict).toBe('FAIL');
  });

  it('takes a normal outcome (or 19 met later) when the entry reads intact; never 10, 22 or 29', () => {
    expect(detectedCheck(attempt(0), before, before, 'x').verdict).toBe('PASS');
    expect(
      detectedCheck(attempt(19, 'DPONE_TARGET_COMMIT_JOURNAL_CORRUPT'), before, before, 'x').verdict,
    ).toBe('PASS');
    for (const [exit, code] of [
      [10, 'DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE'],
      [22, 'DPONE_TARGET_COMMIT_INTENT_CONFLICT'],
      [29, 'DPONE_TARGET_COMMIT_DIVERGED'],
    ] as const) {
      expect(detectedCheck(attempt(exit, code), absent, before, 'x').verdict).toBe('FAIL');
      expect(detectedCheck(attempt(exit, code), corrupt, before, 'x').verdict).toBe('FAIL');
    }
  });
});
