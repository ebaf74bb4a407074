import { CLOCK_OFFSET_ENV } from '../../src/test-hooks/index.ts';
import type { LeaseClock } from '../../src/contracts/lease-clock.ts';
import type { CellFixture } from '../routes/route.ts';

/** Where a cell's leases are: the fixture's journal, or the one a fault keeps elsewhere. */
export type JournalAt = Pick<CellFixture, 'openJournal'>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Slack past the lease's expiry instant, for the gap between this clock read and the worker's. */
const EXPIRY_SLACK_MS = 15;

/**
 * The newest lease expiry the cell's journal holds (null when no lease is held), and whose clock
 * wrote it: the workers' (cell time) or the journal server's (this machine's: the servers run here).
 */
async function latestLeaseExpiry(fixture: JournalAt): Promise<{ expires: number | null; clock: LeaseClock }> {
  const journal = await fixture.openJournal();
  try {
    let latest: number | null = null;
    for (const id of await journal.list()) {
      const expires = (await journal.get(id))?.lease?.expires_at_ms;
      if (expires !== undefined && (latest === null || expires > latest)) latest = expires;
    }
    return { expires: latest, clock: journal.leaseClock };
  } finally {
    await journal.close();
  }
}

/**
 * One cell's clock: the machine's plus an offset that only grows. Every worker the cell starts
 * runs on it (CLOCK_OFFSET_ENV), so "the dead worker's lease has expired" is arranged by moving
 * the cell's clock past the expiry the journal stored, instead of sleeping until it is true. The
 * journal still decides: it compares the instant a worker hands it with the expiry it stored. A
 * worker started earlier (a paused zombie) keeps the offset it started with: it runs behind,
 * as a process whose clock lags would.
 */
export class CellClock {
  #offsetMs = 0;

  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Now, as the cell's next worker will see it. */
  nowMs(): number {
    return Date.now() + this.#offsetMs;
  }

  /** The environment a worker needs to run on this clock. */
  env(): Readonly<Record<string, string>> {
    return this.#offsetMs > 0 ? { [CLOCK_OFFSET_ENV]: String(this.#offsetMs) } : {};
  }

  /**
   * Moves the clock past every lease the cell's journal holds: the next worker finds them expired.
   * A journal on its server's clock ignores the workers' clocks: then it waits (the harness's
   * takeover TTLs are a fraction of a second).
   */
  async passLeases(fixture: JournalAt): Promise<void> {
    const { expires, clock } = await latestLeaseExpiry(fixture);
    if (expires === null) return;
    const ahead = expires - Date.now() + EXPIRY_SLACK_MS;
    if (clock === 'server') {
      if (ahead > 0) await sleep(ahead);
      return;
    }
    if (ahead > this.#offsetMs) this.#offsetMs = ahead;
  }

  /**
   * Sleeps until every lease has expired on the machine's clock: for workers the harness does not
   * start itself (a real Airflow's tries), which run on that clock.
   */
  async waitPastLeases(fixture: JournalAt): Promise<void> {
    const { expires } = await latestLeaseExpiry(fixture);
    const wait = expires === null ? 0 : expires - Date.now() + EXPIRY_SLACK_MS;
    if (wait > 0) await sleep(wait);
  }
}
