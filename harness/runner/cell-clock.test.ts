import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { embeddedEngine } from '../../src/cli/engine-roles.ts';
import { embeddedJournalUrl } from '../../src/cli/embedded-journal.test-support.ts';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { CLOCK_OFFSET_ENV, clockFromEnv } from '../../src/test-hooks/harness-clock.ts';
import type { PlannedCell } from '../plan/cell.ts';
import type { CellFixture, Route } from '../routes/route.ts';
import { CellClock } from './cell-clock.ts';
import { cellRun } from './cell-run.ts';

const OP = `sha256:${'a'.repeat(64)}`;
const TTL_MS = 60_000;
const [EMBEDDED, { journal: embeddedJournal }] = embeddedEngine();

/** The embedded engine's file journal at `path` (the runtime's default journal), opened through its registration. */
function openJournal(path: string, readOnly = false) {
  return embeddedJournal!.open(embeddedJournalUrl(path), undefined, {
    readOnly,
    cwd: dirname(path),
    chosenBy: '--journal',
  });
}

describe('cell clock', () => {
  let dir: string;
  let fixture: CellFixture;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dpone-cell-clock-'));
    const path = join(dir, 'journal.db');
    fixture = { openJournal: () => openJournal(path) } as unknown as CellFixture;
    const journal = await openJournal(path);
    const { entry } = await journal.createIntent({
      operationId: OP,
      intentDigest: `sha256:${'b'.repeat(64)}`,
      metadata: { workload_id: 'w', target_identity: `${EMBEDDED}:t` },
      nowMs: Date.now(),
    });
    // A worker took a one-minute lease and died.
    await journal.acquireLease({
      operationId: OP,
      expectedVersion: entry.version,
      holder: 'dead',
      ttlMs: TTL_MS,
      nowMs: Date.now(),
    });
    await journal.close();
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function takeOver(nowMs: number) {
    const journal = await openJournal(join(dir, 'journal.db'));
    try {
      const entry = (await journal.get(OP))!;
      return await journal.acquireLease({
        operationId: OP,
        expectedVersion: entry.version,
        holder: 'next',
        ttlMs: TTL_MS,
        nowMs,
      });
    } finally {
      await journal.close();
    }
  }

  it('moves past the stored lease at once, and the journal itself then lets the next worker in', async () => {
    const clock = new CellClock();
    await expect(takeOver(clock.nowMs())).rejects.toMatchObject({ code: ERROR_CODES.CAS_CONFLICT });
    const started = performance.now();
    await clock.passLeases(fixture);
    expect(performance.now() - started).toBeLessThan(TTL_MS / 10); // arranged, not waited for
    expect(clock.offsetMs).toBeGreaterThan(TTL_MS - 1_000);
    // The worker reads the offset from its environment, as a harness worker does.
    const worker = clockFromEnv({ DPONE_HARNESS: '1', ...clock.env() });
    expect((await takeOver(worker.nowMs())).lease?.holder).toBe('next');
  });

  it('only ever moves forward', async () => {
    const clock = new CellClock();
    await clock.passLeases(fixture);
    const offset = clock.offsetMs;
    await clock.passLeases(fixture);
    expect(clock.offsetMs).toBe(offset);
    expect(clock.env()).toEqual({ [CLOCK_OFFSET_ENV]: String(offset) });
  });

  it('passes the leases of a journal kept elsewhere (the power-loss mount) when told where it is', async () => {
    // The cell's usual journal path holds nothing: the journal with the dead worker's lease is elsewhere.
    const usual = { openJournal: () => openJournal(join(dir, 'usual.db')) } as unknown as CellFixture;
    const clock = new CellClock();
    const run = cellRun({} as PlannedCell, dir, usual, {} as Route, clock);
    await run.expireLeases();
    expect(clock.offsetMs).toBe(0); // what a power-loss cell did before: the clock never moved
    await expect(takeOver(clock.nowMs())).rejects.toMatchObject({ code: ERROR_CODES.CAS_CONFLICT });
    await run.expireLeases(() => openJournal(join(dir, 'journal.db'), true));
    expect(clock.offsetMs).toBeGreaterThan(TTL_MS - 1_000);
    expect((await takeOver(clock.nowMs())).lease?.holder).toBe('next');
  });

  it('has no offset, and passes no variable, until a lease needs passing', () => {
    const clock = new CellClock();
    expect(clock.offsetMs).toBe(0);
    expect(clock.env()).toEqual({});
  });
});
