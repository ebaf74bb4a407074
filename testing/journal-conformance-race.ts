import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import type { ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/contracts/errors.ts';
import type { JournalHistoryRecord } from '../src/contracts/journal.ts';
import type { RacerAnswer, RacerCommand } from './fixtures/journal-racer.ts';
import { RACE_CYCLE } from './fixtures/journal-racer.ts';
import type { JournalUnderTest } from './journal-conformance-kit.ts';
import { create, opId } from './journal-conformance-kit.ts';

const RACER = fileURLToPath(new URL('./fixtures/journal-racer.ts', import.meta.url));
const LOCKSTEP_STEPS = 16;
const FREE_ATTEMPTS = 40;
const CREATE_ROUNDS = 8;

/** A racer child process: one JSON command in, one JSON answer out. */
class Racer implements AsyncDisposable {
  readonly #child: ResultPromise;
  readonly #lines: AsyncIterator<string>;

  private constructor(child: ResultPromise) {
    this.#child = child;
    this.#lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  }

  static async start(url: string, id: string, holder: string): Promise<Racer> {
    const child = execa(process.execPath, ['--disable-warning=ExperimentalWarning', RACER, url, id, holder], {
      stdin: 'pipe',
      buffer: false,
      reject: false,
    });
    const racer = new Racer(child);
    expect(await racer.#next()).toEqual({ ready: true });
    return racer;
  }

  async #next(): Promise<unknown> {
    const line = await this.#lines.next();
    expect(line.done, 'racer process ended early').toBe(false);
    return JSON.parse(line.value as string);
  }

  async send(command: RacerCommand): Promise<RacerAnswer> {
    this.#child.stdin!.write(`${JSON.stringify(command)}\n`);
    return (await this.#next()) as RacerAnswer;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.#child.stdin!.end();
    const result = await this.#child;
    expect(result.exitCode).toBe(0);
  }
}

/** Lease epochs in history are fencing tokens: same holder keeps it, a new holder adds exactly 1. */
function expectEpochsMonotonic(history: readonly JournalHistoryRecord[]): void {
  let previous: JournalHistoryRecord | null = null;
  for (const record of history.filter((r) => r.kind === 'lease')) {
    const expected =
      previous === null ? 1 : previous.lease_epoch! + (previous.lease_holder === record.lease_holder ? 0 : 1);
    expect(record.lease_epoch).toBe(expected);
    previous = record;
  }
}

function expectVersionsDense(history: readonly JournalHistoryRecord[], finalVersion: number): void {
  expect(history.map((r) => r.version)).toEqual(Array.from({ length: finalVersion }, (_, i) => i + 1));
}

/** Two OS processes racing on one journal. Registered by the suite; skipped for in-process journals. */
export function describeJournalRaceConformance(subjectOf: () => JournalUnderTest): void {
  describe('two OS processes racing on one journal', () => {
    it('create-if-absent across processes: exactly one creates each id, both see its digest', async (context) => {
      const { journal, url } = subjectOf();
      if (url === null) return context.skip('in-process journal: no URL a second process could open');
      await using a = await Racer.start(url, opId('race-create-unused'), 'racer-a');
      await using b = await Racer.start(url, opId('race-create-unused'), 'racer-b');
      for (let k = 0; k < CREATE_ROUNDS; k++) {
        const id = opId(`race-create-${k}`);
        const answers = await Promise.all([
          a.send({ cmd: 'create', id, digest: `sha256:${'a'.repeat(64)}` }),
          b.send({ cmd: 'create', id, digest: `sha256:${'b'.repeat(64)}` }),
        ]);
        const created = answers.filter((x) => 'created' in x && x.created);
        expect(created, `round ${k}`).toHaveLength(1);
        const stored = (await journal.get(id))!;
        expect(answers).toEqual([
          expect.objectContaining({ digest: stored.intent_digest, version: 1 }),
          expect.objectContaining({ digest: stored.intent_digest, version: 1 }),
        ]);
        expect(await journal.history(id)).toHaveLength(1);
      }
    });

    it('lock-step: both attempt every change at the same version and exactly one wins each', async (context) => {
      const { journal, url } = subjectOf();
      if (url === null) return context.skip('in-process journal: no URL a second process could open');
      const id = opId('race-lockstep');
      await create(journal, id);
      await using a = await Racer.start(url, id, 'racer-a');
      await using b = await Racer.start(url, id, 'racer-b');
      for (let k = 0; k < LOCKSTEP_STEPS; k++) {
        const entry = (await journal.get(id))!;
        const next = RACE_CYCLE[entry.state]!;
        const command: RacerCommand =
          k % 2 === 0
            ? { cmd: 'lease', version: entry.version }
            : { cmd: 'cas', version: entry.version, from: entry.state, to: next };
        const answers = await Promise.all([a.send(command), b.send(command)]);
        const won = answers.filter((x) => 'ok' in x && x.ok);
        expect(won, `step ${k}`).toEqual([expect.objectContaining({ version: entry.version + 1 })]);
        expect(answers.filter((x) => 'ok' in x && !x.ok)).toEqual([
          { ok: false, code: ERROR_CODES.CAS_CONFLICT },
        ]);
      }
      const final = (await journal.get(id))!;
      expect(final.version).toBe(LOCKSTEP_STEPS + 1);
      const history = await journal.history(id);
      expectVersionsDense(history, final.version);
      expectEpochsMonotonic(history);
    });

    it('free-running: every version is won by exactly one process; final = successes + 1', async (context) => {
      const { journal, url } = subjectOf();
      if (url === null) return context.skip('in-process journal: no URL a second process could open');
      const id = opId('race-free');
      await create(journal, id);
      await using a = await Racer.start(url, id, 'racer-a');
      await using b = await Racer.start(url, id, 'racer-b');
      const answers = await Promise.all([
        a.send({ cmd: 'free', n: FREE_ATTEMPTS }),
        b.send({ cmd: 'free', n: FREE_ATTEMPTS }),
      ]);
      const wins: number[] = [];
      for (const answer of answers) {
        expect(answer).toHaveProperty('wins');
        if (!('wins' in answer)) return;
        expect(answer.errors).toEqual([]);
        expect(answer.wins.length + answer.conflicts).toBe(FREE_ATTEMPTS);
        wins.push(...answer.wins);
      }
      const final = (await journal.get(id))!;
      expect(final.version).toBe(wins.length + 1);
      expect([...wins].sort((x, y) => x - y)).toEqual(Array.from({ length: wins.length }, (_, i) => i + 2));
      const history = await journal.history(id);
      expectVersionsDense(history, final.version);
      expectEpochsMonotonic(history);
    });
  });
}
