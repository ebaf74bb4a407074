import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { lstat, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';

const SCRIPT = fileURLToPath(new URL('./open-watch.py', import.meta.url));
/** How long the watcher may take to start (a Python interpreter behind a version shim is slow). */
const READY_MS = 20_000;

/** sha256 of a file's bytes (a sealed file must come back unchanged). */
export function digest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Empty files standing in for sealed ones, each watched for any access until `release`. */
export interface WatchedPlaceholders {
  /** Stops watching and says what was done to each placeholder (empty: nothing at all). */
  release(): Promise<readonly string[]>;
}

async function stillEmptyFile(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  return info !== null && info.isFile() && info.size === 0;
}

/**
 * Puts an empty regular file at each path (readable, so an open succeeds and is seen, also by a
 * process that is not root) and watches it through inotify (open-watch.py): an attempt that merely
 * OPENS a sealed file is seen, even when the open leads nowhere (an empty file holds no table) and
 * its error is swallowed, which a folder in the file's place never showed (an open of a folder
 * fails before anything is recorded). Linux only; a machine without Python 3 cannot watch, and the
 * seal says so (DPONE_ENVIRONMENT_UNAVAILABLE) instead of sealing blind.
 */
export async function watchedPlaceholders(paths: readonly string[]): Promise<WatchedPlaceholders> {
  for (const path of paths) await writeFile(path, '', { mode: 0o644, flag: 'wx' });
  const watch = await watchPaths(paths);
  return {
    async release() {
      const seen = new Map<string, Set<string>>();
      for (const event of await watch.release()) {
        if (event.entry !== undefined) continue;
        const events = seen.get(event.path) ?? new Set<string>();
        for (const name of event.events) events.add(name);
        seen.set(event.path, events);
      }
      const touched: string[] = [];
      for (const path of paths) {
        const events = seen.get(path);
        if (events) touched.push(`${basename(path)} ${[...events].join(', ')} (placeholder)`);
        else if (!(await stillEmptyFile(path))) touched.push(`${basename(path)} replaced (placeholder)`);
      }
      return touched;
    },
  };
}

/** One access inotify reported: on a watched path, or (`entry`) on an entry of a watched folder. */
export interface WatchEvent {
  readonly path: string;
  readonly entry?: string;
  readonly events: readonly string[];
}

/**
 * Watches files or folders through inotify (open-watch.py) until `release`, which returns every
 * event seen. Throws DPONE_ENVIRONMENT_UNAVAILABLE when the watcher cannot start: never watches blind.
 */
export async function watchPaths(
  paths: readonly string[],
): Promise<{ release(): Promise<readonly WatchEvent[]> }> {
  const python = process.env.DPONE_PYTHON ?? 'python3';
  const watcher = spawn(python, [SCRIPT, ...paths], { stdio: ['pipe', 'pipe', 'ignore'] });
  let output = '';
  watcher.stdout.setEncoding('utf8');
  watcher.stdout.on('data', (chunk: string) => (output += chunk));
  const exited = once(watcher, 'close').catch(() => [null]);
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), READY_MS);
    const check = () => {
      if (output.startsWith('ready\n')) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    watcher.stdout.on('data', check);
    watcher.once('error', () => resolve(false));
    void exited.then(() => resolve(false));
  });
  if (!ready) {
    watcher.kill('SIGKILL');
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `the storage seal cannot watch its placeholders: ${python} with inotify did not start (set DPONE_PYTHON)`,
    );
  }
  return {
    async release() {
      watcher.stdin.end();
      await exited;
      const events: WatchEvent[] = [];
      for (const line of output.split('\n').slice(1)) {
        if (!line.startsWith('{')) continue;
        const event = JSON.parse(line) as { path?: string; entry?: string; events?: string[] };
        if (event.path === undefined) continue;
        events.push({
          path: event.path,
          ...(event.entry !== undefined ? { entry: event.entry } : {}),
          events: event.events ?? [],
        });
      }
      return events;
    },
  };
}
