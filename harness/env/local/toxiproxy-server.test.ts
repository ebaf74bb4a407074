import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalToxiproxyServer } from './toxiproxy-server.ts';

describe('LocalToxiproxyServer.start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-toxiproxy-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts a server that exits at once again on other ports, three times, then says it did not start', async () => {
    // A stand-in binary that records the port it was given and exits as a server whose port was taken.
    const binary = join(dir, 'toxiproxy-server');
    const calls = join(dir, 'calls');
    writeFileSync(binary, `#!/bin/sh\necho "$4" >> '${calls}'\nexit 1\n`);
    chmodSync(binary, 0o755);
    await expect(LocalToxiproxyServer.start(binary)).rejects.toMatchObject({
      code: 'DPONE_ENVIRONMENT_UNAVAILABLE',
      message: 'the local Toxiproxy server did not start',
    });
    const ports = readFileSync(calls, 'utf8').trim().split('\n');
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(3);
  });
});
