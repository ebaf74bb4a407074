import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DponeError, ERROR_CODES } from '../../../../src/contracts/errors.ts';
import { freeLoopbackPort } from '../../../../harness/env/free-port.ts';
import { executable } from '../../../../harness/env/local/local-binaries.ts';

const run = promisify(execFile);

/** PgBouncer's pool modes the harness certifies through (statement mode breaks transactions). */
export const POOL_MODES = ['session', 'transaction'] as const;
export type PoolMode = (typeof POOL_MODES)[number];

export const PGBOUNCER_MISSING =
  'pgbouncer not found (apt-get install pgbouncer, or $DPONE_PGBOUNCER): the PgBouncer lane cannot run';

/** Debian's pgbouncer (1.18 here), or $DPONE_PGBOUNCER. */
export function findPgBouncer(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [env.DPONE_PGBOUNCER, '/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'];
  return candidates.find((path): path is string => !!path && executable(path)) ?? null;
}

export interface PgBouncerOptions {
  readonly binary: string;
  readonly mode: PoolMode;
  /** The PostgreSQL server it pools (every database on it). */
  readonly upstream: { readonly host: string; readonly port: number };
  /** The one login it accepts and passes on (SCRAM from the plain password in its auth_file). */
  readonly user: string;
  readonly password: string;
  /** OS user that runs it when we are root (pgbouncer refuses root). */
  readonly osUser?: string;
}

/**
 * A throw-away PgBouncer on a free 127.0.0.1 port, as a platform team runs it: its own ini and
 * auth_file in a temp folder, one pool mode, every database of one server. It is configured with
 * the usual "fix" for clients that send settings at startup (`ignore_startup_parameters` naming
 * statement_timeout, lock_timeout and options): such settings are then silently dropped, which
 * is exactly what a client must not rely on (dpone sends none).
 */
export class LocalPgBouncer implements AsyncDisposable {
  readonly host = '127.0.0.1';
  readonly port: number;
  readonly mode: PoolMode;
  readonly #dir: string;
  readonly #child: ChildProcess;
  #disposed = false;

  private constructor(dir: string, port: number, mode: PoolMode, child: ChildProcess) {
    this.#dir = dir;
    this.port = port;
    this.mode = mode;
    this.#child = child;
  }

  static async start(options: PgBouncerOptions): Promise<LocalPgBouncer> {
    const dir = await mkdtemp(join(tmpdir(), 'dpone-pgbouncer-'));
    const root = userInfo().uid === 0;
    const osUser = root ? (options.osUser ?? 'postgres') : null;
    try {
      const port = await freeLoopbackPort();
      const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
      await writeFile(join(dir, 'users.txt'), `${quote(options.user)} ${quote(options.password)}\n`, {
        mode: 0o600,
      });
      await writeFile(join(dir, 'pgbouncer.ini'), ini(options, port, dir), { mode: 0o600 });
      if (osUser) {
        const uid = Number((await run('id', ['-u', osUser])).stdout.trim());
        const gid = Number((await run('id', ['-g', osUser])).stdout.trim());
        for (const file of ['', 'users.txt', 'pgbouncer.ini']) await chown(join(dir, file), uid, gid);
      }
      await chmod(dir, 0o700);
      const [cmd, argv] = osUser
        ? ['runuser', ['-u', osUser, '--', options.binary, join(dir, 'pgbouncer.ini')]]
        : [options.binary, [join(dir, 'pgbouncer.ini')]];
      const child = spawn(cmd, argv, { stdio: 'ignore', cwd: dir });
      const bouncer = new LocalPgBouncer(dir, port, options.mode, child);
      await bouncer.#waitListening();
      return bouncer;
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        'pgbouncer did not start',
        {},
        { cause: error },
      );
    }
  }

  async #waitListening(): Promise<void> {
    for (let i = 0; i < 200; i++) {
      if (this.#child.exitCode !== null)
        throw new DponeError(
          ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
          `pgbouncer exited (${this.#child.exitCode})`,
        );
      if (await accepts(this.host, this.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'pgbouncer did not listen within 5 s');
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    // runuser passes SIGTERM on to pgbouncer (immediate shutdown).
    this.#child.kill('SIGTERM');
    await new Promise((resolve) => {
      if (this.#child.exitCode !== null || this.#child.signalCode !== null) resolve(undefined);
      else this.#child.once('exit', resolve);
      setTimeout(resolve, 3000).unref();
    });
    await rm(this.#dir, { recursive: true, force: true });
  }
}

function ini(options: PgBouncerOptions, port: number, dir: string): string {
  return [
    '[databases]',
    `* = host=${options.upstream.host} port=${options.upstream.port}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = scram-sha-256',
    `auth_file = ${join(dir, 'users.txt')}`,
    `pool_mode = ${options.mode}`,
    // Enough server connections for 32 racing workers in session mode (each holds a few).
    'default_pool_size = 200',
    'max_client_conn = 2000',
    'ignore_startup_parameters = statement_timeout,lock_timeout,options,idle_in_transaction_session_timeout',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    'log_connections = 0',
    'log_disconnections = 0',
    '',
  ].join('\n');
}

function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
