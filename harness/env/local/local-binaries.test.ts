import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findToxiproxyServer } from './local-binaries.ts';

describe('findToxiproxyServer', () => {
  const home = mkdtempSync(join(tmpdir(), 'dpone-toxiproxy-home-'));
  const installed = join(home, 'go', 'bin', 'server');
  mkdirSync(join(home, 'go', 'bin'), { recursive: true });
  writeFileSync(installed, '#!/bin/sh\n');
  chmodSync(installed, 0o755);
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  // No toxiproxy-server on PATH and a GOPATH without one: only the user's home can hold it.
  const bare = { PATH: '', GOPATH: join(home, 'no-gopath'), HOME: home };

  it("finds `go install`'s binary under the user's home, whoever the user is", () => {
    expect(findToxiproxyServer(bare)).toBe(installed);
  });

  it('prefers DPONE_TOXIPROXY_SERVER, and says null when nothing runs', () => {
    const chosen = join(home, 'chosen');
    writeFileSync(chosen, '#!/bin/sh\n');
    chmodSync(chosen, 0o755);
    expect(findToxiproxyServer({ ...bare, DPONE_TOXIPROXY_SERVER: chosen })).toBe(chosen);
    expect(findToxiproxyServer({ ...bare, HOME: join(home, 'elsewhere') })).toBeNull();
  });
});
