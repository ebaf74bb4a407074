import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from 'dpone-cert';
import { MariadbSession, mariadbAddress } from './mariadb-database.ts';
import { skipReason, stopTestServer, testServer } from './fixtures/mariadb-kit-factory.ts';

const skip = skipReason();
if (skip) console.warn(skip);
afterAll(stopTestServer, 60_000);

describe('a MariaDB URL carries the client bounds', () => {
  it('reads connect_timeout_ms and query_timeout_ms after ?, and none when absent', () => {
    expect(
      mariadbAddress(
        'mariadb://u@127.0.0.1:3307/db?connect_timeout_ms=8000&query_timeout_ms=15000',
        'target',
      ),
    ).toEqual({
      host: '127.0.0.1',
      port: 3307,
      user: 'u',
      database: 'db',
      connectTimeoutMs: 8000,
      queryTimeoutMs: 15000,
    });
    const plain = mariadbAddress('mariadb://u@127.0.0.1:3307/db', 'target');
    expect(plain.connectTimeoutMs).toBeUndefined();
    expect(plain.queryTimeoutMs).toBeUndefined();
  });

  it.each([
    ['another option', 'mariadb://u@h:1/db?ssl=1', /may carry only connect_timeout_ms and query_timeout_ms/],
    [
      'a value that is no number',
      'mariadb://u@h:1/db?query_timeout_ms=soon',
      /query_timeout_ms must be a whole number/,
    ],
    ['zero', 'mariadb://u@h:1/db?connect_timeout_ms=0', /connect_timeout_ms must be a whole number/],
    [
      'more than an hour',
      'mariadb://u@h:1/db?query_timeout_ms=3600001',
      /query_timeout_ms must be a whole number/,
    ],
  ])('refuses %s, naming the field', (_, url, message) => {
    expect(() => mariadbAddress(url, 'target')).toThrow(message);
    try {
      mariadbAddress(url, 'target');
    } catch (error) {
      expect(error).toMatchObject({ code: ERROR_CODES.INVALID_INPUT, fields: { field: 'target.url' } });
    }
  });
});

/** A listener that accepts every connection and never answers (a black-holed server). */
async function silentServer(): Promise<Server & AsyncDisposable> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(server, {
    [Symbol.asyncDispose]: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}

describe('a silent link ends a call instead of hanging it', () => {
  it('a connection that gets no handshake fails within connect_timeout_ms', async () => {
    await using silent = await silentServer();
    const { port } = silent.address() as AddressInfo;
    const started = Date.now();
    await expect(
      MariadbSession.open(
        mariadbAddress(`mariadb://u@127.0.0.1:${port}/db?connect_timeout_ms=300`, 'target'),
      ),
    ).rejects.toMatchObject({ code: ERROR_CODES.FENCE_UNAVAILABLE });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it.skipIf(skip !== undefined)(
    'a statement with no reply within query_timeout_ms fails, the session is dropped (close returns at once) and refuses more',
    async () => {
      const server = await testServer();
      const session = await MariadbSession.open({ ...server.address('mysql'), queryTimeoutMs: 500 });
      const started = Date.now();
      await expect(session.runValues('SELECT SLEEP(20)')).rejects.toMatchObject({
        code: 'PROTOCOL_SEQUENCE_TIMEOUT',
      });
      await session.close();
      expect(Date.now() - started).toBeLessThan(5000);
      await expect(session.runValues('SELECT 1')).rejects.toMatchObject({
        code: ERROR_CODES.FENCE_UNAVAILABLE,
      });
      // Without the bound a statement waits for its reply.
      const patient = await MariadbSession.open(server.address('mysql'));
      expect((await patient.runValues('SELECT SLEEP(1) AS s')).rows).toEqual([{ s: 0 }]);
      await patient.close();
    },
    60_000,
  );
});
