import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL_CORRUPTION_DETECTED } from '../evidence/check-names.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { JournalFileOperations, JournalFileReading } from '../routes/route.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import { JOURNAL_DAMAGE_DEFAULT_SHAPES, JOURNAL_DAMAGE_SHAPES } from '../scenario/scenario-schema.ts';
import { isDponeError } from '../../src/contracts/errors.ts';
import type { CellFixture } from '../routes/route.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS, completedOutcome, unverifiedOutcome } from './fault.ts';
import { transitionPoints } from './loss-points.ts';
import { readsEveryEntry } from '../routes/journal-reads.ts';

type Shape = (typeof JOURNAL_DAMAGE_SHAPES)[number];

interface CorruptionParams {
  readonly at: TraceOccurrence;
  readonly shape: Shape;
  /** The damage's own seed (the scenario's seed and the cell's place in the plan): replayable. */
  readonly seed: number;
}

const CORRUPT = 'DPONE_TARGET_COMMIT_JOURNAL_CORRUPT';
const EXIT_CORRUPT = 19;

function planCorruption(spec: FaultSpecOf<'journal-corruption'>, { seed, traces }: PlanContext): CellDraft[] {
  const shapes = spec.shapes ?? JOURNAL_DAMAGE_DEFAULT_SHAPES;
  const points = transitionPoints(traces.clean);
  return shapes.flatMap((shape) =>
    points.map((at, p) => ({
      localId: `${shape}/${occurrenceKey(at)}`,
      fault: { kind: 'journal-corruption', shape, point: at.point, hit: at.hit, attempt: 1 },
      params: {
        at,
        shape,
        seed: (seed * 7919 + JOURNAL_DAMAGE_SHAPES.indexOf(shape) * 1000 + p) >>> 0,
      } satisfies CorruptionParams,
      sensitive: false,
    })),
  );
}

/** mulberry32: a small seeded generator, so a cell's damage is the same on every run. */
function generator(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** The damage: a few bytes of the entries' rows flipped, one bit of the 100-byte header, or the file cut short. */
function damage(
  journal: JournalFileOperations,
  shape: Exclude<Shape, 'fields'>,
  random: (n: number) => number,
): string {
  const file = journal.path;
  const bytes = readFileSync(file);
  switch (shape) {
    case 'rows': {
      const ranges = journal.entryRowRanges(file);
      const range = ranges[random(ranges.length)]!;
      const flips = 1 + random(4);
      for (let i = 0; i < flips; i++) {
        const at = range.from + random(range.to - range.from);
        bytes[at] = bytes[at]! ^ (1 + random(255));
      }
      writeFileSync(file, bytes);
      return `${flips} bytes of an entry page flipped`;
    }
    case 'header': {
      const at = random(100);
      bytes[at] = bytes[at]! ^ (1 << random(8));
      writeFileSync(file, bytes);
      return `a bit of header byte ${at} flipped`;
    }
    case 'truncation': {
      const length = 100 + random(bytes.length - 100);
      writeFileSync(file, bytes.subarray(0, length));
      return `cut from ${bytes.length} to ${length} bytes`;
    }
  }
}

function describeReading(reading: JournalFileReading, before: JournalFileReading): string {
  if (reading.kind === 'error') return `a reader gets ${reading.code}`;
  if (reading.kind === 'absent') return 'the entry reads as absent';
  return before.kind === 'entry' && reading.entry === before.entry
    ? 'the entry reads as it was'
    : 'the entry reads otherwise';
}

/**
 * The retry on the damaged journal: exit 19 JOURNAL_CORRUPT whenever the runtime's own reader met
 * the damage in what a run reads first (the file's header and pages at open, the operation's
 * entry); when that read was intact, a normal outcome (exit 0) or 19 for damage met later (a
 * history page, a row it wrote next to the damage). Never another code: not "locked" (10), not an
 * intent conflict (22), not a divergence (29).
 */
export function detectedCheck(
  retry: AttemptRecord,
  seen: JournalFileReading,
  before: JournalFileReading,
  what: string,
): CheckRecord {
  const name = JOURNAL_CORRUPTION_DETECTED;
  const exit = retry.exit_code;
  const code = retry.error_code ?? 'no code';
  const said19 = exit === EXIT_CORRUPT && retry.error_code === CORRUPT;
  const read = describeReading(seen, before);
  if (seen.kind === 'error') {
    if (said19) return { name, verdict: 'PASS', detail: `${what}: ${read}; the retry exited 19 ${CORRUPT}` };
    return {
      name,
      verdict: 'FAIL',
      detail: `${what}: ${read}, but the retry exited ${exit ?? retry.signal} (${code}), not 19 ${CORRUPT}`,
    };
  }
  if (exit === 0)
    return { name, verdict: 'PASS', detail: `${what}: ${read}; the retry ran normally (exit 0)` };
  if (said19)
    return {
      name,
      verdict: 'PASS',
      detail: `${what}: ${read}; the retry met the damage later and exited 19`,
    };
  return {
    name,
    verdict: 'FAIL',
    detail: `${what}: ${read}, but the retry exited ${exit ?? retry.signal} (${code}): neither a normal outcome nor 19 ${CORRUPT}`,
  };
}

/** The operation's entry as the runtime's own journal code reads it (checksums verified), or the error code it gets. */
async function readEntry(
  fixture: CellFixture,
): Promise<{ operationId: string | null; reading: JournalFileReading }> {
  const journal = await fixture.openJournal();
  try {
    const [operationId = null] = await journal.list();
    if (operationId === null) return { operationId, reading: { kind: 'absent' } };
    try {
      const entry = await journal.get(operationId);
      if (entry === null) return { operationId, reading: { kind: 'absent' } };
      return {
        operationId,
        reading: {
          kind: 'entry',
          entry: JSON.stringify(entry),
          state: entry.state,
          leaseHeld: entry.lease !== null,
        },
      };
    } catch (error) {
      return {
        operationId,
        reading: { kind: 'error', code: isDponeError(error) ? error.code : 'unreadable' },
      };
    }
  } finally {
    await journal.close();
  }
}

/** The killed attempt left nothing of the operation to damage: the retry runs as a crash's. */
function nothingToDamage(first: AttemptRecord, retry: AttemptRecord, why: string): CellOutcome {
  return completedOutcome(
    [first, retry],
    [{ name: JOURNAL_CORRUPTION_DETECTED, verdict: 'PASS', detail: `${why}; the retry ran normally` }],
  );
}

/** What a damaged cell records: the damage, and whether the first read after it met the entry intact. */
function damageRecord(
  what: string,
  seen: JournalFileReading,
  before: JournalFileReading,
): NonNullable<CellOutcome['fault']> {
  const intact = seen.kind === 'entry' && before.kind === 'entry' && seen.entry === before.entry;
  return { damage: what, first_read: intact ? 'intact' : seen.kind };
}

/** Whether every entry and its history read through the runtime's own journal code (checksums verified). */
async function readsWhole(fixture: CellFixture): Promise<boolean> {
  const journal = await fixture.openJournal();
  try {
    return await readsEveryEntry(journal);
  } finally {
    await journal.close();
  }
}

/**
 * A server journal's rows changed behind its back: the first attempt killed at the point, one
 * field of the entry (or of its latest history row) changed by the server's superuser, then the
 * retry; restored from the backup taken before the change when the retry refused.
 */
async function runFields(run: CellRun, at: TraceOccurrence, seed: number): Promise<CellOutcome> {
  const ops = run.fixture.journalOps;
  if (ops?.tamper === undefined || ops.backup === undefined || ops.restore === undefined)
    return unverifiedOutcome(
      "the route's journal offers no way to change its rows behind its back: no fields cell for it",
    );
  const first = await run.killAt('first', at);
  if (!first.hit) return { attempts: [first.record], hit: false };
  const { operationId, reading: before } = await readEntry(run.fixture);
  const backup = await ops.backup();
  // The killed attempt's lease passes on the cell's clock now: once the rows are changed the
  // harness could not read the journal for it.
  await run.expireLeases();
  const what = operationId === null ? null : await ops.tamper(seed);
  if (what === null) {
    const retry = await run.run('retry');
    return nothingToDamage(first.record, retry, 'the killed attempt left no journal row to change');
  }
  const { reading: seen } = await readEntry(run.fixture);
  const retry = await run.run('retry');
  const attempts = [first.record, retry];
  const checks = [detectedCheck(retry, seen, before, what)];
  if (retry.exit_code !== 0 || !(await readsWhole(run.fixture))) {
    // "Restore the journal; do not retry": the operator restores the backup, and the next run
    // finishes the operation from what the journal and the target's fence say.
    await ops.restore(backup);
    await run.expireLeases();
    attempts.push(await run.run('after-restore'));
  }
  return completedOutcome(attempts, checks, damageRecord(what, seen, before));
}

async function runCorruption(run: CellRun): Promise<CellOutcome> {
  const { at, shape, seed } = run.cell.params as unknown as CorruptionParams;
  if (shape === 'fields') return runFields(run, at, seed);
  const journal = run.fixture.journalFile;
  if (journal === undefined)
    return unverifiedOutcome("the route's journal is not one local file: no journal-corruption cell for it");
  const first = await run.killAt('first', at);
  if (!first.hit) return { attempts: [first.record], hit: false };
  const file = journal.path;
  const operationId = await journal.settle();
  if (operationId === null) {
    // Killed before the operation had an entry: nothing of it to damage; the retry runs as a crash's.
    await run.expireLeases();
    const retry = await run.run('retry');
    return nothingToDamage(first.record, retry, 'the killed attempt left no entry to damage');
  }
  // The journal as the killed attempt left it: the operator's backup, restored after a refusal.
  const backup = join(run.dir, 'journal.backup');
  copyFileSync(file, backup);
  const before = await journal.read(backup, operationId);
  // The killed attempt's lease passes on the cell's clock now: the harness reads the journal for
  // it, which it cannot once the journal is damaged.
  await run.expireLeases();
  const what = damage(journal, shape, generator(seed));
  // Kept in the cell folder: what the retry met (journal ids and states only, no row values).
  const aside = join(run.dir, 'journal.damaged');
  copyFileSync(file, aside);
  const seen = await journal.read(aside, operationId);
  const retry = await run.run('retry');
  const attempts = [first.record, retry];
  const checks = [detectedCheck(retry, seen, before, what)];
  if (retry.exit_code !== 0 || !(await journal.readsWhole(file))) {
    // "Restore the journal; do not retry": the operator puts the backup back, and the next run
    // finishes the operation from what the journal and the target's fence say.
    for (const suffix of ['', ...journal.sideSuffixes]) rmSync(`${file}${suffix}`, { force: true });
    copyFileSync(backup, file);
    await run.expireLeases();
    attempts.push(await run.run('after-restore'));
  }
  return completedOutcome(attempts, checks, damageRecord(what, seen, before));
}

/**
 * journal-corruption: at every transition point of the clean trace the first attempt is killed,
 * then the route's journal file is damaged (seeded: a few bytes of an entry page, a bit of the
 * header, or the file cut short) and a retry runs on it. Never a second mutation; exit 19
 * JOURNAL_CORRUPT whenever the damage reaches what the run reads, else a normal outcome; never 10,
 * 22 or 29. Then, as the error's hint says, the journal is restored from the backup taken before
 * the damage, and one more run must complete the operation with exactly one mutation.
 */
export const journalCorruptionFault: FaultModule<'journal-corruption'> = {
  kind: 'journal-corruption',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planCorruption,
  run: runCorruption,
};
