import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/** How long a drained connection is read before the listener drops it (the client gives up first). */
const DRAIN_MS = 1_000;

/**
 * A TCP listener on 127.0.0.1 that stands in for a server the harness must prove untouched: it
 * counts every connection and closes it at once, without reading a byte. Disposing closes it.
 * With `drain`, it closes its side at once (never a byte sent) but reads, for at most a second,
 * what the client still sends, and counts those bytes too: a client that speaks first (a
 * startup packet) shows it did; one that waits for the server's greeting sends none.
 */
export class Tripwire implements AsyncDisposable {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #drain: boolean;
  #connections = 0;
  #bytes = 0;
  readonly port: number;
  readonly host = '127.0.0.1';

  private constructor(server: Server, port: number, drain: boolean) {
    this.#server = server;
    this.port = port;
    this.#drain = drain;
  }

  /** `url` with its host and port replaced by this listener's: a workload that reaches only it. */
  standIn(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = this.host;
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** `host:port` of this listener, for a URL (or any address text) that names the real one. */
  get authority(): string {
    return `${this.host}:${this.port}`;
  }

  static async listen(options: { readonly drain?: boolean } = {}): Promise<Tripwire> {
    let wire: Tripwire | null = null;
    const pending: Socket[] = [];
    const server = createServer((socket) => {
      if (wire) wire.#trip(socket);
      else pending.push(socket);
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
    wire = new Tripwire(server, port, options.drain === true);
    for (const socket of pending) wire.#trip(socket);
    return wire;
  }

  #trip(socket: Socket): void {
    this.#connections += 1;
    this.#sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.#sockets.delete(socket));
    if (!this.#drain) {
      socket.destroy();
      return;
    }
    socket.on('data', (chunk: Buffer) => {
      this.#bytes += chunk.length;
    });
    const timer = setTimeout(() => socket.destroy(), DRAIN_MS);
    socket.on('close', () => clearTimeout(timer));
    socket.end();
  }

  /** Bytes the clients sent before they closed (counted with `drain` only; 0 otherwise). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
