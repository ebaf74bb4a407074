import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClickHouseServer } from './clickhouse-server.ts';

describe('ClickHouseServer.start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-ch-start-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts a server that exits at once again on other ports, three times, then names it', async () => {
    // A stand-in binary that records the config it was given and exits as a server whose port was taken.
    const binary = join(dir, 'clickhouse-server');
    const calls = join(dir, 'calls');
    writeFileSync(binary, `#!/bin/sh\necho "$1" >> '${calls}'\nexit 70\n`);
    chmodSync(binary, 0o755);
    const started = ClickHouseServer.start({ binary, startTimeoutMs: 5_000 });
    await expect(started).rejects.toMatchObject({
      code: 'DPONE_ENVIRONMENT_UNAVAILABLE',
      message: 'the local ClickHouse server did not start',
      cause: { message: 'clickhouse-server exited with 70' },
    });
    const configs = readFileSync(calls, 'utf8').trim().split('\n');
    expect(configs).toHaveLength(3);
    expect(new Set(configs).size).toBe(3);
  });
});
