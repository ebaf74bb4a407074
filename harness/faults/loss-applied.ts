import type { CheckRecord, FenceReading } from '../evidence/evidence-types.ts';
import type { CellRun } from './fault.ts';

const NAME = 'loss-applied';

/** The operation's entry as the harness reads the cell's journal (never creating one), or null. */
export interface JournalPosition {
  readonly state: string;
  readonly version: number;
}

export async function journalPosition(run: CellRun): Promise<JournalPosition | null> {
  const journal = await run.fixture.openJournal();
  try {
    const [id] = await journal.list();
    const entry = id === undefined ? null : await journal.get(id);
    return entry ? { state: entry.state, version: entry.version } : null;
  } finally {
    await journal.close();
  }
}

const shown = (position: JournalPosition | null) =>
  position ? `${position.state} v${position.version}` : 'no entry';

/**
 * Whether the loss took effect, so a cell never passes for having tested nothing: a journal that
 * lost the operation reads empty afterwards, a restored one is older, a WAL held frames, the fence
 * row is gone from where the runtime looks. UNKNOWN (not FAIL) when it did not: the cell proves
 * nothing either way.
 */
export function lossApplied(ok: boolean, detail: string): CheckRecord {
  return {
    name: NAME,
    verdict: ok ? 'PASS' : 'UNKNOWN',
    detail: ok ? detail : `the loss did not take effect: ${detail}`,
  };
}

export function journalLost(
  before: JournalPosition | null,
  after: JournalPosition | null,
  what: string,
): CheckRecord {
  return lossApplied(
    before !== null && after === null,
    `${what}: the journal held ${shown(before)}, then ${shown(after)}`,
  );
}

export function journalRolledBack(
  before: JournalPosition | null,
  after: JournalPosition | null,
): CheckRecord {
  const older = before !== null && (after === null || after.version < before.version);
  return lossApplied(older, `restored ${shown(after)} over ${shown(before)}`);
}

/** The fence row is no longer where the runtime looks (the first location the route reads). */
export function fenceGone(reading: FenceReading, what: string): CheckRecord {
  const [own] = reading.locations;
  const gone = own !== undefined && own.status === null;
  return lossApplied(
    gone,
    `${what}: ${own ? `${own.where} ${own.table ? `holds ${own.status ?? 'no row'}` : 'is gone'}` : 'no fence location read'}`,
  );
}
