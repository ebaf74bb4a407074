import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { accepts, verifiedServerControl } from './server-kill-control.ts';
import type { TargetServerAddress } from './target-part.ts';

/** A stand-in "database server" on a fixed port: a TCP listener that can be closed and reopened. */
class StandIn {
  server: Server | undefined;
  port = 0;
  async open(): Promise<void> {
    const server = createServer((socket) => socket.destroy());
    this.server = server;
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.port = (server.address() as { port: number }).port;
  }
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
  get address(): TargetServerAddress {
    return { host: '127.0.0.1', port: this.port };
  }
}

let standIns: StandIn[] = [];
afterEach(async () => {
  for (const standIn of standIns) await standIn.close();
  standIns = [];
});

async function standIn(): Promise<StandIn> {
  const made = new StandIn();
  await made.open();
  standIns.push(made);
  return made;
}

describe("a plug-in's server control, as server-kill cells drive it", () => {
  it('is believed when the declared host:port refuses connections after kill and accepts them after start', async () => {
    const server = await standIn();
    const signals: string[] = [];
    const control = verifiedServerControl('plugin-route-x', server.address, {
      kill: async (signal) => {
        signals.push(signal);
        await server.close();
      },
      start: () => server.open(),
    });
    await control.kill('SIGKILL');
    expect(await accepts(server.address)).toBe(false);
    await control.start();
    expect(await accepts(server.address)).toBe(true);
    expect(signals).toEqual(['SIGKILL']);
  });

  it('throws (the cell is not PASS) when kill returns but the server still answers', async () => {
    const server = await standIn();
    const control = verifiedServerControl('plugin-route-x', server.address, {
      kill: async () => undefined,
      start: async () => undefined,
    });
    await expect(control.kill('SIGKILL')).rejects.toMatchObject({
      code: ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      message: expect.stringMatching(/still accepts connections .*the kill did not stop it/),
      fields: { field: 'harness.target.prepare.control' },
    });
  }, 20_000);

  it('throws when start returns but nothing answers at the declared host:port', async () => {
    const server = await standIn();
    await server.close();
    const control = verifiedServerControl(
      'plugin-route-x',
      server.address,
      {
        kill: async () => undefined,
        start: async () => undefined,
      },
      { downMs: 1_000, upMs: 1_000 },
    );
    await control.kill('SIGTERM');
    await expect(control.start()).rejects.toMatchObject({
      message: expect.stringMatching(/nothing accepts connections at 127\.0\.0\.1:\d+/),
    });
  }, 20_000);
});
