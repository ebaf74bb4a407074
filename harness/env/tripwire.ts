import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';

/**
 * A TCP listener on 127.0.0.1 that stands in for a server the harness must prove untouched: it
 * counts every connection and closes it at once, without reading a byte. Disposing closes it.
 */
export class Tripwire implements AsyncDisposable {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #connections = 0;
  readonly port: number;
  readonly host = '127.0.0.1';

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
  }

  /** `url` with its host and port replaced by this listener's: a workload that reaches only it. */
  standIn(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = this.host;
    parsed.port = String(this.port);
    return parsed.toString();
  }

  static async listen(): Promise<Tripwire> {
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
    wire = new Tripwire(server, port);
    for (const socket of pending) wire.#trip(socket);
    return wire;
  }

  #trip(socket: Socket): void {
    this.#connections += 1;
    this.#sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.destroy();
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
