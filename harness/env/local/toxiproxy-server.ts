import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { freeLoopbackPort } from '../free-port.ts';

const START_ATTEMPTS = 3;

/**
 * A Toxiproxy server process on a free 127.0.0.1 port, started from the local binary. The API
 * answers at `apiUrl`; proxies it creates listen on other loopback ports.
 */
export class LocalToxiproxyServer implements AsyncDisposable {
  readonly host = '127.0.0.1';
  readonly port: number;
  readonly #child: ChildProcess;

  private constructor(port: number, child: ChildProcess) {
    this.port = port;
    this.#child = child;
  }

  get apiUrl(): string {
    return `http://${this.host}:${this.port}`;
  }

  /**
   * Starts the server; one that exits while starting is started again on another free port, up to
   * three times (a port found free can be taken before the server binds it).
   */
  static async start(binary: string): Promise<LocalToxiproxyServer> {
    for (let attempt = 1; attempt < START_ATTEMPTS; attempt++) {
      const server = await LocalToxiproxyServer.#startOnce(binary, true);
      if (server) return server;
    }
    return (await LocalToxiproxyServer.#startOnce(binary, false))!;
  }

  /** The started server; null when it exited while starting and `orNull` (else that throws too). */
  static async #startOnce(binary: string, orNull: boolean): Promise<LocalToxiproxyServer | null> {
    const port = await freeLoopbackPort();
    const child = spawn(binary, ['-host', '127.0.0.1', '-port', String(port)], {
      stdio: ['ignore', 'ignore', 'ignore'],
      env: { ...process.env, LOG_LEVEL: 'error' },
    });
    const server = new LocalToxiproxyServer(port, child);
    for (let i = 0; i < 200; i++) {
      if (child.exitCode !== null) break;
      if (await server.version().catch(() => null)) return server;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const exited = child.exitCode !== null;
    await server[Symbol.asyncDispose]();
    if (exited && orNull) return null;
    throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'the local Toxiproxy server did not start');
  }

  /** The server's version string (GET /version). */
  async version(): Promise<string> {
    const response = await fetch(`${this.apiUrl}/version`, { signal: AbortSignal.timeout(1000) });
    if (!response.ok)
      throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'Toxiproxy API did not answer');
    const text = (await response.text()).trim();
    try {
      const parsed = JSON.parse(text) as { version?: string };
      return parsed.version ?? text;
    } catch {
      return text;
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }
}
