import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { acceptWorkers, killAllWorkers } from '../workers/worker.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * Ctrl-C (SIGINT) or SIGTERM during `certify run`. The first signal kills every worker process at
 * once — SIGKILL, then SIGCONT so a SIGSTOPped pause worker dies too instead of holding its
 * database's write lock — refuses to start new ones, and lets the run unwind: no new cell starts,
 * the cells in flight end, the environment's servers are stopped by their disposers and the
 * scratch folder is removed. The run then ends with DPONE_INTERRUPTED (exit 130) and one line
 * saying how far it got; no evidence is written for a run that did not finish. A second signal
 * exits at once.
 */
export class Interruption implements Disposable {
  readonly #stderr: NodeJS.WritableStream;
  readonly #listeners = new Map<string, () => void>();
  #signal: string | null = null;
  /** How far the run got, for the one line an interrupted run ends with. */
  progress = 'before any cell ran';

  constructor(stderr: NodeJS.WritableStream = process.stderr) {
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
      `certify run interrupted by ${this.#signal} ${this.progress}: workers killed, servers stopped, scratch removed; no evidence written (run it again)`,
    );
  }

  throwIfStopped(): void {
    if (this.#signal !== null) throw this.error();
  }

  #received(signal: string): void {
    if (this.#signal !== null) {
      killAllWorkers();
      this.#stderr.write(
        `dpone certify: second ${signal}: exiting now; a server this run started may outlive it\n`,
      );
      process.exit(130);
    }
    this.#signal = signal;
    killAllWorkers();
  }

  [Symbol.dispose](): void {
    for (const [signal, listener] of this.#listeners) process.off(signal, listener);
    this.#listeners.clear();
    acceptWorkers();
  }
}
