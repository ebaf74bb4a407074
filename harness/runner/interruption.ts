import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { acceptWorkers, killAllWorkers } from '../workers/worker.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** How long the run may take to unwind after the first signal before it cleans up and exits anyway. */
const UNWIND_LIMIT_MS = 30_000;
/** How long the last-resort cleanup may take on a second signal or past the unwind limit. */
const FORCED_CLEANUP_LIMIT_MS = 10_000;

/**
 * Ctrl-C (SIGINT) or SIGTERM during `certify run`. The first signal kills every worker process at
 * once — SIGKILL, then SIGCONT so a SIGSTOPped pause worker dies too instead of holding its
 * database's write lock — refuses to start new ones, and lets the run unwind: no new cell starts,
 * the cells in flight end, the environment's servers are stopped by their disposers and the
 * scratch folder is removed. The run then ends with DPONE_INTERRUPTED (exit 130) and one line
 * saying how far it got; no evidence is written for a run that did not finish. A second signal, or
 * a run that has not unwound within 30 s, runs the registered last-resort cleanup (stop the
 * environment, remove the scratch; at most 10 s) and exits 130 at once.
 */
export class Interruption implements Disposable {
  readonly #stderr: NodeJS.WritableStream;
  readonly #listeners = new Map<string, () => void>();
  #signal: string | null = null;
  #cleanup: () => Promise<unknown> = async () => undefined;
  #deadline: NodeJS.Timeout | null = null;
  /** How far the run got, for the one line an interrupted run ends with. */
  progress = 'before any cell ran';

  readonly #runId: string;

  constructor(runId: string, stderr: NodeJS.WritableStream = process.stderr) {
    this.#runId = runId;
    this.#stderr = stderr;
    acceptWorkers();
    for (const signal of SIGNALS) {
      const listener = () => this.#received(signal);
      this.#listeners.set(signal, listener);
      process.on(signal, listener);
    }
  }

  get stopped(): boolean {
    return this.#signal !== null;
  }

  /** The coded error that ends an interrupted run, saying how far it got. */
  error(): DponeError {
    return new DponeError(
      ERROR_CODES.INTERRUPTED,
      `certify run ${this.#runId} interrupted by ${this.#signal} ${this.progress}: workers killed, servers stopped, scratch removed; no evidence written (run it again)`,
    );
  }

  /** What to do if the run cannot unwind in time: stop what it started, remove its scratch. */
  setCleanup(cleanup: () => Promise<unknown>): void {
    this.#cleanup = cleanup;
  }

  throwIfStopped(): void {
    if (this.#signal !== null) throw this.error();
  }

  #received(signal: string): void {
    killAllWorkers();
    if (this.#signal !== null) {
      this.#forceExit(`second ${signal}`);
      return;
    }
    this.#signal = signal;
    this.#deadline = setTimeout(
      () => this.#forceExit(`not unwound ${UNWIND_LIMIT_MS / 1000} s after ${signal}`),
      UNWIND_LIMIT_MS,
    );
    this.#deadline.unref();
  }

  #forceExit(why: string): void {
    this.#stderr.write(`dpone certify: ${why}: stopping the environment and exiting (130)\n`);
    const limit = setTimeout(() => process.exit(130), FORCED_CLEANUP_LIMIT_MS);
    void Promise.resolve()
      .then(this.#cleanup)
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(limit);
        process.exit(130);
      });
  }

  [Symbol.dispose](): void {
    if (this.#deadline) clearTimeout(this.#deadline);
    for (const [signal, listener] of this.#listeners) process.off(signal, listener);
    this.#listeners.clear();
    acceptWorkers();
  }
}
