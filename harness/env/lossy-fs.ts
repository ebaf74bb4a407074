import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lossyFsBinaryPath, lossyFsUnavailable } from './lossy-fs-binary.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';

/** Counters the filesystem keeps (the control socket's `stats`). */
export interface LossyFsStats {
  readonly fsyncs: number;
  readonly dirsyncs: number;
  readonly cuts: number;
  readonly syncalls: number;
  readonly writes: number;
  /** Files whose content a cut now would roll back. */
  readonly unsynced: number;
  /** Directories whose entries a cut now would roll back. */
  readonly dirsahead: number;
}

/**
 * A mounted power-loss filesystem over a backing folder (harness/env/lossyfs/README.md): writes,
 * truncates and directory changes stay in its memory until fsync of the file or of the directory.
 */
export interface LossyFs extends AsyncDisposable {
  /** Where processes under test read and write. */
  readonly mountPoint: string;
  /** The real folder: it holds exactly what a power cut now would leave. */
  readonly backing: string;
  /**
   * The power cut: everything not synced is dropped; the mount then shows the backing folder as
   * after a reboot. Kill the processes that use the mount first (a cut takes them down too).
   */
  cutPower(): Promise<void>;
  /** sync(2) for this filesystem: every file and directory made durable. */
  syncAll(): Promise<void>;
  stats(): Promise<LossyFsStats>;
}

export type LossyFsStart =
  { readonly available: true; readonly fs: LossyFs } | { readonly available: false; readonly reason: string };

export interface LossyFsOptions {
  /** The real folder that holds what survives (created when missing). */
  readonly backing: string;
  /** How long to wait for the mount to serve (default 15 s). */
  readonly readyTimeoutMs?: number;
  /**
   * Lets other OS users reach the mount (its folder traversable by all): a server the harness runs
   * as an OS user of its own keeps its data there. The mount itself is mounted
   * allow_other; the control socket stays the harness's.
   */
  readonly openToOthers?: boolean;
}

/** Mounts the filesystem over `backing`, or says why it cannot be mounted here. */
export async function startLossyFs(options: LossyFsOptions): Promise<LossyFsStart> {
  const binary = lossyFsBinaryPath();
  const reason = lossyFsUnavailable(binary);
  if (reason !== null) return { available: false, reason };
  mkdirSync(options.backing, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'dpone-lossyfs-'));
  if (options.openToOthers === true) chmodSync(work, 0o711);
  const mountPoint = join(work, 'mnt');
  const control = join(work, 'control.sock');
  mkdirSync(mountPoint);
  const child = spawn(binary, ['-backing', options.backing, '-mount', mountPoint, '-control', control], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const failure = await waitReady(child, options.readyTimeoutMs ?? 15_000);
  if (failure !== null) {
    await unmount(mountPoint, child);
    rmSync(work, { recursive: true, force: true });
    return { available: false, reason: `the power-loss filesystem did not mount: ${failure}` };
  }
  const fs: LossyFs = {
    mountPoint,
    backing: options.backing,
    cutPower: async () => expectOk(await command(control, 'cut'), 'cut'),
    syncAll: async () => expectOk(await command(control, 'sync'), 'sync'),
    stats: async () => JSON.parse(await command(control, 'stats')) as LossyFsStats,
    async [Symbol.asyncDispose]() {
      await unmount(mountPoint, child);
      rmSync(work, { recursive: true, force: true });
    },
  };
  return { available: true, fs };
}

/** Resolves null once the binary prints "ready", or the reason it exited or stalled. */
function waitReady(child: ChildProcess, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    let stderr = '';
    let stdout = '';
    const timer = setTimeout(() => resolve(`no "ready" within ${timeoutMs} ms`), timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('ready\n')) {
        clearTimeout(timer);
        resolve(null);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve(error.message);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(`exited with ${signal ?? code}: ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
    });
  });
}

/** One command on the control socket; the answer line. */
function command(socket: string, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = createConnection(socket);
    let answer = '';
    connection.once('error', reject);
    connection.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
      const end = answer.indexOf('\n');
      if (end >= 0) {
        connection.end();
        resolve(answer.slice(0, end));
      }
    });
    connection.write(`${line}\n`);
  });
}

function expectOk(answer: string, what: string): void {
  if (answer !== 'ok')
    throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, `lossyfs ${what} failed: ${answer}`);
}

/**
 * Never leaves a mount behind: a lazy unmount detaches it even while a killed test's process still
 * holds a file open, then the server is asked to stop and, if it lingers, killed.
 */
async function unmount(mountPoint: string, child: ChildProcess): Promise<void> {
  if (isMounted(mountPoint)) {
    const fusermount = spawnSync('fusermount3', ['-u', '-z', mountPoint], { stdio: 'ignore' });
    if (fusermount.status !== 0 && isMounted(mountPoint))
      spawnSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
  }
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 500);
    await exited;
    clearTimeout(timer);
  }
  if (isMounted(mountPoint)) spawnSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
}

function isMounted(mountPoint: string): boolean {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === mountPoint);
}
