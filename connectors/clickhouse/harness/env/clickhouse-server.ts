import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DponeError, ERROR_CODES } from '../../../../src/contracts/errors.ts';
import type { ClickHouseEndpoint, ControllableClickHouse } from './clickhouse-endpoint.ts';
import { clickhouseHttp } from './clickhouse-endpoint.ts';
import { freeLoopbackPort } from '../../../../harness/env/free-port.ts';
import { executable, onPath } from '../../../../harness/env/local/local-binaries.ts';

const CANDIDATES = ['/usr/sbin/clickhouse-server', '/usr/bin/clickhouse-server', '/usr/bin/clickhouse'];

/**
 * Finds a ClickHouse server binary: $DPONE_CLICKHOUSE_SERVER, Debian's /usr/sbin/clickhouse-server
 * (18.16), `clickhouse-server` on PATH, or the single `clickhouse` binary (then run as `server`).
 */
export function findClickHouseServer(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [env.DPONE_CLICKHOUSE_SERVER, ...CANDIDATES, onPath('clickhouse-server', env)];
  return candidates.find((path): path is string => !!path && executable(path)) ?? null;
}

const START_ATTEMPTS = 3;

/** The server process ended before it answered /ping. */
class ServerExited extends DponeError {
  constructor(code: number | string | null) {
    super(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, `clickhouse-server exited with ${code}`);
  }
}

function configXml(dir: string, httpPort: number, tcpPort: number, partLog: boolean): string {
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/log/server.log</log><errorlog>${dir}/log/server.err.log</errorlog><size>10M</size><count>1</count></logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <users_config>${dir}/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <mlock_executable>false</mlock_executable>
  <max_concurrent_queries>200</max_concurrent_queries>
  ${partLog ? '<part_log><database>system</database><table>part_log</table><flush_interval_milliseconds>100</flush_interval_milliseconds></part_log>' : ''}
</yandex>
`;
}

/** A user the tests log in as with a password (and a read-only one), besides password-less `default`. */
export const CLICKHOUSE_USERS = { writer: 'dpone', reader: 'dpone_reader' } as const;

function usersXml(password: string): string {
  const user = (name: string, profile: string) =>
    `<${name}><password>${password}</password><networks><ip>127.0.0.1</ip></networks><profile>${profile}</profile><quota>default</quota></${name}>`;
  return `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default><readonly><readonly>1</readonly></readonly></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>${user(CLICKHOUSE_USERS.writer, 'default')}${user(CLICKHOUSE_USERS.reader, 'readonly')}</users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;
}

/**
 * A throw-away ClickHouse server: own data, log and tmp folders in a temp dir, free loopback HTTP
 * and TCP ports, listening on 127.0.0.1 only, no interserver port, `system.part_log` flushed every
 * 100 ms (the harness inspector counts landings from it). Users: `default` without a password
 * (setup and inspection) and `dpone`/`dpone_reader` with a generated password. Runs as root as is
 * (seen with 18.16). Started when `/ping` answers; `kill`/`restart` stop and start the same server
 * on the same folders and ports (server-kill faults); disposing kills it and removes the folder.
 */
export class ClickHouseServer implements ControllableClickHouse, AsyncDisposable {
  readonly host = '127.0.0.1';
  readonly httpPort: number;
  readonly tcpPort: number;
  /** Password of the `dpone` and `dpone_reader` users (never written anywhere but the temp users.xml). */
  readonly password: string;
  readonly #dir: string;
  readonly #binary: string;
  #child: ChildProcess;
  #disposed = false;

  private constructor(dir: string, binary: string, ports: { http: number; tcp: number }, password: string) {
    this.#dir = dir;
    this.#binary = binary;
    this.httpPort = ports.http;
    this.tcpPort = ports.tcp;
    this.password = password;
    this.#child = this.#spawn();
  }

  /**
   * `partLog: false` starts a server that does not log parts (to test that the harness notices).
   * A server that exits while starting is started again on two other free ports, up to three times:
   * a port found free can be taken before the server binds it (another process's outgoing
   * connection gets it as its local port), and the server then exits at once.
   */
  static async start(options: {
    binary: string;
    startTimeoutMs?: number;
    partLog?: boolean;
  }): Promise<ClickHouseServer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await ClickHouseServer.#startOnce(options);
      } catch (error) {
        const exited = error instanceof DponeError && error.cause instanceof ServerExited;
        if (!exited || attempt >= START_ATTEMPTS) throw error;
      }
    }
  }

  static async #startOnce(options: {
    binary: string;
    startTimeoutMs?: number;
    partLog?: boolean;
  }): Promise<ClickHouseServer> {
    const dir = await mkdtemp(join(tmpdir(), 'dpone-ch-'));
    const [http, tcp] = [await freeLoopbackPort(), await freeLoopbackPort()];
    const password = randomBytes(12).toString('hex');
    for (const sub of ['data', 'tmp', 'log', 'user_files', 'format_schemas']) await mkdir(join(dir, sub));
    await writeFile(join(dir, 'config.xml'), configXml(dir, http, tcp, options.partLog ?? true));
    await writeFile(join(dir, 'users.xml'), usersXml(password));
    const server = new ClickHouseServer(dir, options.binary, { http, tcp }, password);
    try {
      await server.#waitForPing(options.startTimeoutMs ?? 30_000);
      return server;
    } catch (error) {
      await server[Symbol.asyncDispose]();
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        'the local ClickHouse server did not start',
        {},
        { cause: error },
      );
    }
  }

  /** `clickhouse://<user>@127.0.0.1:<http>/<database>`; the password (for `dpone`) goes separately. */
  url(database = 'default', user = 'default'): string {
    return `clickhouse://${user}@${this.host}:${this.httpPort}/${database}`;
  }

  /** Whether the server process is running (false between `kill` and `restart`). */
  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The password-less `default` user, for set-up and inspection. */
  get admin(): ClickHouseEndpoint {
    return { host: this.host, httpPort: this.httpPort, user: 'default', password: '' };
  }

  /** Runs one statement over HTTP as `default` (test setup: CREATE DATABASE, seeding). Returns the body. */
  exec(sql: string, settings?: Readonly<Record<string, number>>): Promise<string> {
    return clickhouseHttp(this.admin, sql, 'run a set-up statement', settings);
  }

  /** Stops the server with `signal` (SIGKILL: a crash; SIGTERM: a clean shutdown) and waits for it to exit. */
  async kill(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL'): Promise<void> {
    if (!this.running) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.kill(signal);
    await exited;
  }

  /** Stops the server with `signal` (unless already stopped) and starts it again on the same data and ports. */
  async restart(signal: 'SIGKILL' | 'SIGTERM' = 'SIGKILL', startTimeoutMs = 30_000): Promise<void> {
    await this.kill(signal);
    this.#child = this.#spawn();
    await this.#waitForPing(startTimeoutMs);
  }

  #spawn(): ChildProcess {
    const single = this.#binary.endsWith('/clickhouse');
    const args = [...(single ? ['server'] : []), `--config-file=${join(this.#dir, 'config.xml')}`];
    return spawn(this.#binary, args, { cwd: this.#dir, stdio: 'ignore', detached: false });
  }

  async #waitForPing(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) throw new ServerExited(this.#child.exitCode ?? this.#child.signalCode);
      const ok = await fetch(`http://${this.host}:${this.httpPort}/ping`)
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'clickhouse-server did not answer /ping in time',
    );
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.kill('SIGKILL');
    await rm(this.#dir, { recursive: true, force: true });
  }
}
