import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DponeError } from '../../src/contracts/errors.ts';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import type { CommitJournalEntry } from '../../src/contracts/journal.ts';
import { deriveOperationId } from '../../src/contracts/identity.ts';
import { SqliteJournal } from './journal/sqlite-journal.ts';
import { readWorkloadFile } from '../../src/cli/workload-file.ts';
import { seededRandom } from '../../harness/data/seeded-random.ts';
import {
  EXPECTED_ROWS,
  dpone,
  exampleCopy,
  targetCounts,
} from '../../src/cli/commands/example-workload.test-support.ts';

/**
 * Issue 33 "What was seen" 3 as a seeded fuzz test through the real CLI: after a first run
 * committed, the default journal's bytes are damaged (bit flips anywhere, a truncation, a random
 * 4 KiB page overwritten, a bit of the 100-byte header flipped) and `dpone run` runs again. Never a
 * second write; never "locked" (10), an intent conflict (22) or a divergence (29); exit 19
 * JOURNAL_CORRUPT naming the file and the default that chose it whenever the damage reaches what
 * the run reads, and otherwise exit 0 with nothing written.
 */
const TRIALS = 32;
const SEED = 0x33_0c0de;

type Kind = 'bit-flips' | 'truncation' | 'page' | 'header';
const KINDS: readonly Kind[] = ['bit-flips', 'truncation', 'page', 'header'];

function damage(bytes: Buffer, kind: Kind, random: () => number): Buffer {
  const below = (n: number) => Math.floor(random() * n);
  const copy = Buffer.from(bytes);
  switch (kind) {
    case 'bit-flips':
      for (let i = 1 + below(8); i > 0; i--) {
        const at = below(copy.length);
        copy[at] = copy[at]! ^ (1 << below(8));
      }
      return copy;
    case 'truncation':
      return copy.subarray(0, 100 + below(copy.length - 100));
    case 'page': {
      const page = below(Math.ceil(copy.length / 4096));
      for (let at = page * 4096; at < Math.min(copy.length, (page + 1) * 4096); at++) copy[at] = below(256);
      return copy;
    }
    case 'header': {
      const at = below(100);
      copy[at] = copy[at]! ^ (1 << below(8));
      return copy;
    }
  }
}

/** What a reader of this journal file gets for the operation: its entry, or the error it raises. */
async function readBack(path: string, operationId: string): Promise<CommitJournalEntry | null | DponeError> {
  try {
    await using journal = await SqliteJournal.open(path, { readOnly: true });
    return await journal.get(operationId);
  } catch (error) {
    return error as DponeError;
  }
}

/** Bytes up to the end of the last page in use (free pages at the file's end hold nothing read). */
function bytesInUse(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const { last } = db.prepare('SELECT MAX(pageno) AS last FROM dbstat').get() as { last: number };
    const { page_size: size } = db.prepare('PRAGMA page_size').get() as { page_size: number };
    return Number(last) * Number(size);
  } finally {
    db.close();
  }
}

function errorOf(stderr: string): { code?: string; message?: string } {
  const line = stderr.split('\n').find((l) => l.trim().startsWith('{'));
  return line ? ((JSON.parse(line) as { error?: object }).error ?? {}) : {};
}

describe('a journal damaged at random: corrupt (19) or untouched, never a second write', () => {
  it(`${TRIALS} seeded trials of bit flips, truncations, pages and header flips`, async () => {
    const committed = exampleCopy();
    const first = await dpone(['run', '--workload', committed.workload, '--json'], { cwd: committed.dir });
    expect(first.exitCode, first.stderr).toBe(0);
    const journalOf = (dir: string) => join(dir, 'data/state/journal.db');
    // The run closed the journal: its WAL was checkpointed into the file and removed.
    expect(existsSync(`${journalOf(committed.dir)}-wal`)).toBe(false);
    const pristine = readFileSync(journalOf(committed.dir));
    const operationId = deriveOperationId(
      (await readWorkloadFile(committed.workload, committed.dir)).identity,
    );
    const original = await readBack(journalOf(committed.dir), operationId);
    expect(original).toMatchObject({ state: 'COMPLETE' });
    const inUse = bytesInUse(journalOf(committed.dir));
    const random = seededRandom(SEED);
    const scratch = mkdtempSync(join(tmpdir(), 'dpone-journal-fuzz-'));
    const tally: Record<string, number> = {};
    for (let trial = 0; trial < TRIALS; trial++) {
      const kind = KINDS[trial % KINDS.length]!;
      const example = exampleCopy();
      copyFileSync(committed.targetPath(), example.targetPath());
      mkdirSync(join(example.dir, 'data/state'), { recursive: true });
      const damaged = damage(pristine, kind, random);
      writeFileSync(journalOf(example.dir), damaged);
      // What the damaged file holds for the operation, read from a copy before the run touches it.
      const aside = join(scratch, `trial-${trial}.db`);
      writeFileSync(aside, damaged);
      const seen = await readBack(aside, operationId);
      const again = await dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir });
      const label = `trial ${trial} (${kind}): exit ${again.exitCode} ${again.stderr}`;
      // Never a second write, whatever the damage.
      expect(targetCounts(example.targetPath()), label).toEqual({
        rows: EXPECTED_ROWS,
        distinctIds: EXPECTED_ROWS,
      });
      expect([0, EXIT_CODES.DPONE_TARGET_COMMIT_JOURNAL_CORRUPT], label).toContain(again.exitCode);
      if (again.exitCode === 0) {
        // The damage did not reach what the run reads: the operation's entry reads as it was (or,
        // its key damaged, reads as absent and the commit is learnt from the fence).
        expect(seen === null || JSON.stringify(seen) === JSON.stringify(original), label).toBe(true);
        expect(JSON.parse(again.stdout), label).toMatchObject({ mutated: false, status: 'already-complete' });
      } else {
        const error = errorOf(again.stderr);
        expect(error.code, label).toBe('DPONE_TARGET_COMMIT_JOURNAL_CORRUPT');
        expect(error.message, label).toContain(journalOf(example.dir));
        expect(error.message, label).toContain('the default journal.db in execution.state_dir');
      }
      // A truncation that cuts into a page in use (not only the free pages at the end) reaches it.
      if (kind === 'truncation' && damaged.length < inUse)
        expect(again.exitCode, label).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_JOURNAL_CORRUPT);
      const outcome = again.exitCode === 0 ? (seen === null ? 'key lost, 0' : '0') : '19';
      tally[`${kind}: ${outcome}`] = (tally[`${kind}: ${outcome}`] ?? 0) + 1;
    }
    // An overwritten page always reaches what the run reads (quick_check walks every page, the
    // free list included); each kind of damage was seen as corruption at least once.
    expect(tally['page: 19']).toBe(TRIALS / KINDS.length);
    for (const kind of KINDS) expect(tally[`${kind}: 19`], kind).toBeGreaterThan(0);
    console.log(`journal fuzz (seed ${SEED}):`, tally);
  }, 180_000);
});
