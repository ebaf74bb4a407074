import { connect, createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { checkServerAddress, sealServerTarget, serverAuthority } from './server-seal.ts';
import type { TargetRows } from './target-part.ts';

/** A stand-in "database server": a TCP listener that counts the connections it gets. */
async function realServer(): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.on('error', () => undefined);
    socket.destroy();
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
  return { server, port, connections: () => connections };
}

/** Connects to `host:port` of a URL, sends `payload`, and waits until the other side closes. */
async function talk(url: string, payload: string): Promise<void> {
  const { hostname, port } = new URL(url);
  await new Promise<void>((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.write(payload));
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.resume();
  });
}

const rows = (...ids: number[]): TargetRows => ({
  rows: ids.map((id) => ({ id: BigInt(id), label: `row ${id}` })),
  inserts: ids.map((id) => ({ key: { id: BigInt(id) }, marker: 'tx-1' })),
  markerKind: 'transaction',
});

let servers: Server[] = [];
afterEach(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  servers = [];
});

describe('the declared server address of a plug-in target', () => {
  it('must be named exactly once by the workload URL, with a real port', () => {
    const server = { host: 'db.example', port: 3306 };
    expect(() => checkServerAddress('r', 'x://u@db.example:3306/warehouse', server)).not.toThrow();
    for (const url of [
      'x://u@db.example/warehouse',
      'x://u@db.example:3307/warehouse',
      'x://u@db.example:3306/db.example:3306',
    ])
      expect(() => checkServerAddress('r', url, server)).toThrow(
        expect.objectContaining({
          code: ERROR_CODES.INVALID_INPUT,
          fields: { field: 'harness.target.prepare.server' },
        }),
      );
    for (const bad of [
      { host: '', port: 3306 },
      { host: 'db.example', port: 0 },
      { host: 'db.example', port: 3306.5 },
    ])
      expect(() => checkServerAddress('r', 'x://u@db.example:3306/w', bad)).toThrow(
        /port: an integer 1-65535/,
      );
  });

  it('writes an IPv6 host in brackets, as a URL names it', () => {
    expect(serverAuthority({ host: '::1', port: 5432 })).toBe('[::1]:5432');
    expect(() => checkServerAddress('r', 'x://u@[::1]:5432/w', { host: '::1', port: 5432 })).not.toThrow();
  });
});

describe('sealing a server-backed plug-in target for one attempt', () => {
  it("re-points the URL's host:port at a listener that counts connections and bytes and forwards nothing", async () => {
    const real = await realServer();
    servers.push(real.server);
    const url = `x://u@127.0.0.1:${real.port}/warehouse?table=events`;
    const seal = await sealServerTarget(url, { host: '127.0.0.1', port: real.port }, async () => rows(1, 2));
    expect(seal.url).not.toContain(`:${real.port}/`);
    expect(seal.url).toMatch(/^x:\/\/u@127\.0\.0\.1:\d+\/warehouse\?table=events$/);
    await talk(seal.url, 'hello');
    expect(await seal.release()).toEqual([
      '1 connection(s) and 5 byte(s) to the listener standing in for the target server',
    ]);
    // Nothing reached the real server through the seal.
    expect(real.connections()).toBe(0);
  });

  it('says nothing was touched when nothing aimed at it and the target reads the same', async () => {
    const seal = await sealServerTarget('x://u@h:1/w', { host: 'h', port: 1 }, async () => rows(2, 1));
    expect(await seal.release()).toEqual([]);
  });

  it('reports a target changed meanwhile: a connector that reached the server some other way', async () => {
    const real = await realServer();
    servers.push(real.server);
    let reading = rows(1);
    const url = `x://u@127.0.0.1:${real.port}/w`;
    const seal = await sealServerTarget(url, { host: '127.0.0.1', port: real.port }, async () => reading);
    // The connector ignores the sealed URL: it talks to the real server and writes a row.
    await talk(url, 'insert');
    reading = rows(1, 2);
    expect(await seal.release()).toEqual([
      "the target's rows or audited inserts (read by the harness) changed",
    ]);
    expect(real.connections()).toBe(1);
  });
});
