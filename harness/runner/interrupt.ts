import { ERROR_CODES, EXIT_CODES } from '../../src/contracts/errors.ts';

/** How long the cleanup after Ctrl-C may take before the process exits anyway. */
const CLEANUP_LIMIT_MS = 30_000;

/**
 * While the returned handle is not disposed, SIGINT (Ctrl-C) and SIGTERM run `cleanup` (remove the
 * run's databases, schemas, proxies and servers) and then exit with DPONE_INTERRUPTED's code (130),
 * instead of Node's default of dying on the spot and leaving them behind. Workers are child
 * processes and end with the run.
 */
export function cleanupOnInterrupt(
  /** What is being cleaned up, for the one line on stderr (e.g. `run 20260705T…-postgres-1a2b3c`). */
  what: string,
  cleanup: () => Promise<unknown>,
  stderr: { write(text: string): unknown } = process.stderr,
  exit: (code: number) => void = (code) => process.exit(code),
): Disposable {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    stderr.write(`dpone: ${ERROR_CODES.INTERRUPTED}: ${signal}: removing what ${what} created\n`);
    const code = EXIT_CODES[ERROR_CODES.INTERRUPTED];
    const timer = setTimeout(() => exit(code), CLEANUP_LIMIT_MS);
    void Promise.resolve()
      .then(cleanup)
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        exit(code);
      });
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    [Symbol.dispose]() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
