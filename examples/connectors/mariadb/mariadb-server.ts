import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { DponeError, ERROR_CODES } from 'dpone-cert';
import type { MariadbAddress } from './mariadb-database.ts';
import { withSession } from './mariadb-database.ts';

/** Where Debian puts the server (`/usr/sbin` is not on every user's PATH). */
const SEARCH = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/bin'];

function which(name: string): string | null {
  for (const dir of SEARCH) if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  return null;
}

/** The server binaries, or why they are missing (`apt-get install -y mariadb-server` on Debian). */
export function findMariadb(): { mariadbd: string; installDb: string } | { missing: string } {
  const mariadbd = which('mariadbd');
  const installDb = which('mariadb-install-db');
  if (mariadbd && installDb) return { mariadbd, installDb };
  return { missing: 'mariadbd or mariadb-install-db not found (apt-get install -y mariadb-server)' };
}

const START_WAIT_MS = 60_000;
const STOP_WAIT_MS = 30_000;
/** The user the harness and the workers connect as; root stays on the socket only. */
const USER = 'dpone';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));

/**
 * Stops the server and removes its folder when this process goes away without disposing it (a
 * kill, an unhandled signal): a shell that waits for end of file on a pipe only this process holds.
 */
const WATCHDOG =
  'cat >/dev/null; kill -TERM "$1" 2>/dev/null; while kill -0 "$1" 2>/dev/null; do sleep 0.2; done; rm -rf "$2"';

/**
 * A throw-away MariaDB server: its own data folder in a temp dir, a free port on 127.0.0.1, utf8mb4,
 * a `dpone` user with a random password (never written anywhere but the server's own init file,
 * inside the folder that dispose removes). `Symbol.asyncDispose` stops it and removes the folder.
 */
export class MariadbServer implements AsyncDisposable {
  readonly host = '127.0.0.1';
  readonly user = USER;
  readonly #dir: string;
  readonly #mariadbd: string;
  #server: ChildProcess;
  #watchdog: ChildProcess;
  #disposed: Promise<void> | undefined;

  readonly port: number;
  readonly password: string;

  private constructor(
    mariadbd: string,
    dir: string,
    port: number,
    password: string,
    server: ChildProcess,
    watchdog: ChildProcess,
  ) {
    this.#mariadbd = mariadbd;
    this.#dir = dir;
    this.port = port;
    this.password = password;
    this.#server = server;
    this.#watchdog = watchdog;
  }

  /** The server's folder (data, socket, error log): gone once disposed. */
  get dir(): string {
    return this.#dir;
  }

  /** The address of `database` on this server, as the `dpone` user. */
  address(database: string): MariadbAddress {
    return { host: this.host, port: this.port, user: this.user, password: this.password, database };
  }

  /** The workload URL of `database` (no password: that comes from password_env). */
  url(database: string): string {
    return `mariadb://${this.user}@${this.host}:${this.port}/${database}`;
  }

  static async start(): Promise<MariadbServer> {
    const found = findMariadb();
    if ('missing' in found)
      throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, found.missing, { field: 'mariadbd' });
    const dir = mkdtempSync(join(tmpdir(), 'dpone-mariadb-'));
    try {
      const data = join(dir, 'data');
      // Its own folder for temporary tables: bootstraps sharing the OS's one fail now and then when
      // several start at once (`Unknown table 'mysql.tmp_user_sys'`: 8 of 24 here, 8 at a time).
      mkdirSync(join(dir, 'tmp'));
      const install = spawnSync(
        found.installDb,
        [
          '--no-defaults',
          `--datadir=${data}`,
          `--tmpdir=${join(dir, 'tmp')}`,
          '--auth-root-authentication-method=socket',
          '--skip-test-db',
        ],
        { stdio: 'ignore', timeout: START_WAIT_MS },
      );
      if (install.status !== 0)
        throw new DponeError(
          ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
          'mariadb-install-db could not create a data folder',
          {
            field: 'mariadbd',
          },
        );
      const password = randomBytes(18).toString('base64url');
      writeFileSync(
        join(dir, 'init.sql'),
        `CREATE USER IF NOT EXISTS '${USER}'@'127.0.0.1' IDENTIFIED BY '${password}';\n` +
          `GRANT ALL PRIVILEGES ON *.* TO '${USER}'@'127.0.0.1';\n`,
        { mode: 0o600 },
      );
      // A port another process took between freePort() and the bind: the server exits; try another.
      for (let attempt = 1; ; attempt++) {
        const port = await freePort();
        const started = await MariadbServer.#launch(found.mariadbd, dir, port, password);
        if (started) return started;
        if (attempt === 3)
          throw new DponeError(
            ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
            'mariadbd did not start (its error log is err.log in its folder)',
            {
              field: 'mariadbd',
            },
          );
      }
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Spawns mariadbd on `dir` and `port`, with a watchdog that stops it should this process die. */
  static #spawn(
    mariadbd: string,
    dir: string,
    port: number,
  ): { server: ChildProcess; watchdog: ChildProcess } {
    const args = [
      '--no-defaults',
      `--datadir=${join(dir, 'data')}`,
      `--tmpdir=${join(dir, 'tmp')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${join(dir, 'mariadbd.sock')}`,
      `--pid-file=${join(dir, 'mariadbd.pid')}`,
      `--log-error=${join(dir, 'err.log')}`,
      `--init-file=${join(dir, 'init.sql')}`,
      // A --no-defaults server speaks latin1: every table and connection here is utf8mb4.
      '--character-set-server=utf8mb4',
      '--collation-server=utf8mb4_nopad_bin',
      '--skip-name-resolve',
      // Each cell starts two to five workers, each a connection per unit of work.
      '--max-connections=1000',
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
    ];
    const server = spawn(mariadbd, args, { stdio: 'ignore' });
    server.unref();
    const watchdog = spawn('sh', ['-c', WATCHDOG, 'watchdog', String(server.pid), dir], {
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    watchdog.unref();
    (watchdog.stdin as unknown as { unref(): void }).unref();
    return { server, watchdog };
  }

  /** Waits until the server answers; false if it exited or did not answer within START_WAIT_MS. */
  async #answers(): Promise<boolean> {
    const server = this.#server;
    const deadline = Date.now() + START_WAIT_MS;
    for (;;) {
      if (server.exitCode !== null || server.signalCode !== null) return false;
      try {
        await withSession(this.address('mysql'), async () => undefined);
        return true;
      } catch {
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  static async #launch(
    mariadbd: string,
    dir: string,
    port: number,
    password: string,
  ): Promise<MariadbServer | null> {
    const { server, watchdog } = MariadbServer.#spawn(mariadbd, dir, port);
    const instance = new MariadbServer(mariadbd, dir, port, password, server, watchdog);
    if (await instance.#answers()) return instance;
    await instance.#stop();
    return null;
  }

  /**
   * Stops the server with `signal` (SIGKILL: a crash, no shutdown; SIGTERM: a clean shutdown) and
   * waits until it exited; its folder stays, for `restart()`. Server-kill cells drive it.
   */
  async kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    // The watchdog would remove the folder once the server is gone: it goes first (SIGKILL: it stops nothing).
    this.#watchdog.kill('SIGKILL');
    const server = this.#server;
    if (server.exitCode !== null || server.signalCode !== null) return;
    const gone = exited(server);
    server.kill(signal);
    const timer = setTimeout(() => server.kill('SIGKILL'), STOP_WAIT_MS);
    await gone;
    clearTimeout(timer);
  }

  /** Starts the server again on the same data folder and port; resolves once it answers (crash recovery done). */
  async restart(): Promise<void> {
    if (this.#server.exitCode === null && this.#server.signalCode === null)
      throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'mariadbd is still running: kill it first', {
        field: 'mariadbd',
      });
    const { server, watchdog } = MariadbServer.#spawn(this.#mariadbd, this.#dir, this.port);
    this.#server = server;
    this.#watchdog = watchdog;
    if (!(await this.#answers()))
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        'mariadbd did not start again on its data folder (its error log is err.log in its folder)',
        { field: 'mariadbd' },
      );
  }

  async #stop(): Promise<void> {
    this.#watchdog.kill('SIGKILL');
    if (this.#server.exitCode === null && this.#server.signalCode === null) {
      const gone = exited(this.#server);
      this.#server.kill('SIGTERM');
      const timer = setTimeout(() => this.#server.kill('SIGKILL'), STOP_WAIT_MS);
      await gone;
      clearTimeout(timer);
    }
  }

  /** What the server wrote to its error log (for a test's failure message; never into evidence). */
  errorLog(): string {
    try {
      return readFileSync(join(this.#dir, 'err.log'), 'utf8');
    } catch {
      return '';
    }
  }

  [Symbol.asyncDispose](): Promise<void> {
    this.#disposed ??= this.#stop().then(() => rmSync(this.#dir, { recursive: true, force: true }));
    return this.#disposed;
  }
}
