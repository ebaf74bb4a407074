import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DponeError, ERROR_CODES } from '../../../../src/contracts/errors.ts';
import { freeLoopbackPort } from '../../../../harness/env/free-port.ts';
import type pg from 'pg';
import { adminQuery } from './postgres-admin.ts';
import { closePools } from './postgres-pool.ts';

const run = promisify(execFile);

export interface PostgresClusterOptions {
  /** Folder holding initdb, pg_ctl and postgres. */
  readonly bin: string;
  /** OS user that owns and runs the cluster when we are root (initdb refuses root). */
  readonly osUser?: string;
  /**
   * Where the data directory lives (created, owned by the OS user), when not in the cluster's temp
   * folder: a folder on a power-loss filesystem (power-loss cells). It goes with that filesystem.
   */
  readonly dataDir?: string;
  /** More `-c name=value` server settings, after the harness's own (the unsafe `fsync=off`). */
  readonly settings?: readonly string[];
}

/**
 * A throw-away PostgreSQL cluster in a temp folder, listening on a free 127.0.0.1 port with
 * scram-sha-256 password auth (fsync on). The password is random, lives in memory only and is
 * handed to clients through the environment. Killing and restarting it is part of the API
 * because server faults need exactly that.
 */
export class LocalPostgresCluster implements AsyncDisposable {
  readonly host = '127.0.0.1';
  readonly port: number;
  readonly user = 'dpone';
  readonly password: string;
  /** A database that always exists, for administration. */
  readonly adminDatabase = 'postgres';
  /** host:port a Toxiproxy server on this machine reaches it at. */
  readonly proxyUpstream: string;
  readonly #dir: string;
  readonly #bin: string;
  readonly #osUser: string | null;
  readonly #dataDir: string | null;
  readonly #settings: readonly string[];
  #disposed = false;

  private constructor(
    dir: string,
    port: number,
    bin: string,
    osUser: string | null,
    password: string,
    place: { readonly dataDir?: string; readonly settings?: readonly string[] } = {},
  ) {
    this.#dir = dir;
    this.#dataDir = place.dataDir ?? null;
    this.#settings = place.settings ?? [];
    this.port = port;
    this.proxyUpstream = `127.0.0.1:${port}`;
    this.#bin = bin;
    this.#osUser = osUser;
    this.password = password;
  }

  static async start(options: PostgresClusterOptions): Promise<LocalPostgresCluster> {
    const root = userInfo().uid === 0;
    const osUser = root ? (options.osUser ?? 'postgres') : null;
    const dir = await mkdtemp(join(tmpdir(), 'dpone-pg-'));
    const cluster = new LocalPostgresCluster(
      dir,
      await freeLoopbackPort(),
      options.bin,
      osUser,
      randomBytes(18).toString('hex'),
      options,
    );
    try {
      await chmod(dir, 0o700);
      if (options.dataDir !== undefined) await mkdir(options.dataDir, { mode: 0o700 });
      if (osUser) {
        const { stdout } = await run('id', ['-u', osUser]);
        const { stdout: gid } = await run('id', ['-g', osUser]);
        await chown(dir, Number(stdout.trim()), Number(gid.trim()));
        if (options.dataDir !== undefined)
          await chown(options.dataDir, Number(stdout.trim()), Number(gid.trim()));
      }
      await cluster.#tool('initdb', [
        '-D',
        cluster.dataDir,
        '-U',
        cluster.user,
        '-E',
        'UTF8',
        '--no-sync',
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
      ]);
      await cluster.startServer();
      await cluster.#setPassword();
      return cluster;
    } catch (error) {
      await cluster[Symbol.asyncDispose]().catch(() => undefined);
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        'the local PostgreSQL cluster did not start',
        {},
        { cause: error },
      );
    }
  }

  get dataDir(): string {
    return this.#dataDir ?? join(this.#dir, 'data');
  }

  /** Connection URL without the password (the password goes through the environment). */
  url(database: string): string {
    return `postgres://${this.user}@${this.host}:${this.port}/${database}`;
  }

  /**
   * Runs `statements` in order as the cluster's own user on one short connection to `database`
   * (default: the admin database, e.g. for CREATE DATABASE), closed after; each one's result.
   */
  query(statements: readonly string[], database = this.adminDatabase): Promise<pg.QueryResult[]> {
    return adminQuery(this, database, statements);
  }

  /** The postmaster's pid, read from postmaster.pid; null when the server is down. */
  async postmasterPid(): Promise<number | null> {
    try {
      const text = await readFile(join(this.dataDir, 'postmaster.pid'), 'utf8');
      const pid = Number(text.split('\n')[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  }

  /** Starts (or restarts after a kill or a stop) the server on the same port; crash recovery runs. */
  async startServer(): Promise<void> {
    const opts = [
      `-p ${this.port}`,
      `-k ${this.#dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=on',
      '-c max_connections=300',
      '-c shared_buffers=32MB',
      '-c log_min_messages=fatal',
      ...this.#settings.map((setting) => `-c ${setting}`),
    ].join(' ');
    await this.#tool('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.#dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      opts,
      'start',
    ]);
  }

  /**
   * An asynchronous streaming standby of this server (pg_basebackup -R -X stream) on a port of its
   * own, started and streaming: what a failover promotes. Disposed on its own.
   */
  async startStandby(): Promise<LocalPostgresCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'dpone-pg-standby-'));
    const standby = new LocalPostgresCluster(
      dir,
      await freeLoopbackPort(),
      this.#bin,
      this.#osUser,
      this.password,
    );
    try {
      await chmod(dir, 0o700);
      if (this.#osUser) {
        const { stdout } = await run('id', ['-u', this.#osUser]);
        const { stdout: gid } = await run('id', ['-g', this.#osUser]);
        await chown(dir, Number(stdout.trim()), Number(gid.trim()));
      }
      await standby.#tool(
        'pg_basebackup',
        [
          '-h',
          this.host,
          '-p',
          String(this.port),
          '-U',
          this.user,
          '-D',
          standby.dataDir,
          '-R',
          '-X',
          'stream',
        ],
        { PGPASSWORD: this.password },
      );
      await standby.startServer();
      return standby;
    } catch (error) {
      await standby[Symbol.asyncDispose]().catch(() => undefined);
      throw error;
    }
  }

  /** Promotes a standby (pg_ctl promote, waiting until it accepts writes). */
  async promote(): Promise<void> {
    await this.#tool('pg_ctl', ['-D', this.dataDir, '-w', '-t', '60', 'promote']);
  }

  /**
   * The failover's last step: this (dead) server's address is taken over by `promoted`, whose
   * data directory moves into this one's place and starts on this port, so every client,
   * proxy and inspector pointed here now talks to the promoted standby.
   */
  async takeOver(promoted: LocalPostgresCluster): Promise<void> {
    await this.killServer();
    await promoted.stopServer();
    await rm(this.dataDir, { recursive: true, force: true });
    await this.#tool('mv', [promoted.dataDir, this.dataDir]);
    await this.startServer();
  }

  /** Clean stop (fast mode): the server refuses connections until startServer. */
  async stopServer(): Promise<void> {
    await this.#tool('pg_ctl', ['-D', this.dataDir, '-w', '-t', '60', '-m', 'fast', 'stop']);
  }

  /** SIGKILL the postmaster and every backend it forked, as a crashed host would; waits until all are gone. */
  async killServer(): Promise<number | null> {
    const pid = await this.postmasterPid();
    if (pid === null) return null;
    const children = await childPids(pid);
    for (const p of [pid, ...children]) signal(p, 'SIGKILL');
    for (let i = 0; i < 200 && [pid, ...children].some(alive); i++) await sleep(25);
    return pid;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await closePools(this);
    await this.#tool('pg_ctl', ['-D', this.dataDir, '-w', '-t', '30', '-m', 'immediate', 'stop']).catch(
      () => undefined,
    );
    await rm(this.#dir, { recursive: true, force: true });
  }

  async #setPassword(): Promise<void> {
    const pg = await import('pg');
    const client = new pg.default.Client({
      host: this.#dir,
      port: this.port,
      user: this.user,
      database: 'postgres',
    });
    await client.connect();
    try {
      await client.query(`ALTER ROLE ${this.user} PASSWORD ${client.escapeLiteral(this.password)}`);
    } finally {
      await client.end();
    }
  }

  async #tool(name: string, args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<void> {
    const file = name === 'mv' ? '/bin/mv' : join(this.#bin, name);
    const [cmd, argv] = this.#osUser
      ? ['runuser', ['-u', this.#osUser, '--', file, ...args]]
      : [file, [...args]];
    await run(cmd, argv, {
      cwd: this.#dir,
      timeout: 90_000,
      env: { ...process.env, LC_ALL: 'C', ...extraEnv },
    });
  }
}

async function childPids(parent: number): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent) found.push(Number(name));
  }
  return found;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
