import { chmodSync, existsSync, readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/contracts/errors.ts';
import { findLocalBinaries } from './env/local-binaries.ts';
import type { PartCell } from '../../../harness/routes/parts.ts';
import { PostgresJournal } from '../journal/postgres-journal.ts';
import type { LocalPostgresCluster } from './env/postgres-cluster.ts';
import {
  localDedicatedService,
  oneServerForTheParts,
  releasedAfterEach,
} from './dedicated-server.test-support.ts';
import { holdFullDiskPostgres } from './postgres-full-disk.ts';
import type { FullDiskPostgres } from './postgres-full-disk.ts';

// Outside CI a machine without PostgreSQL or root (a tmpfs mount) skips with the reason; CI runs as
// root with PostgreSQL provisioned, so there a missing one fails.
const bin = findLocalBinaries().postgresBin;
const reason =
  bin === null ? 'no PostgreSQL binaries' : process.getuid?.() !== 0 ? 'mounting a tmpfs needs root' : null;
const unverified = reason !== null && process.env.CI !== 'true';
if (unverified) console.warn(`UNVERIFIED postgres full disk: ${reason}`);

const service = localDedicatedService(bin!);
const cells = releasedAfterEach<FullDiskPostgres>('dpone-pg-full-');

function cell(): PartCell {
  const dir = cells.folder();
  // The server runs as its own OS user: it must reach the mount inside (cell folders are 0755).
  chmodSync(dir, 0o755);
  return { dir, environment: { provider: 'local' }, fullDisk: true } as unknown as PartCell;
}

const intent = (operationId: string) => ({
  operationId,
  intentDigest: operationId,
  metadata: { workload_id: 'w', target_identity: 't' },
  nowMs: Date.now(),
});

describe.skipIf(unverified)('PostgreSQL on a full disk (live)', () => {
  it('keeps its data directory on the size-limited mount; a journal write on the filled disk is STORAGE_FULL, and goes through once freed', async () => {
    const server = cells.held(await holdFullDiskPostgres(cell(), service));
    const { disk, owned } = server;
    expect(disk.dataDir.startsWith(`${disk.mountPoint}/`)).toBe(true);
    expect(existsSync(join(disk.dataDir, 'PG_VERSION'))).toBe(true);
    const cluster = owned as unknown as LocalPostgresCluster;
    // The journal's tables exist (and are empty: the first row needs a new block).
    const journal = await PostgresJournal.open(cluster.url('postgres'), cluster.password);
    try {
      await disk.fill();
      expect(statfsSync(disk.mountPoint).bavail).toBe(0);
      const refused = await journal.createIntent(intent('sha256:full')).catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: ERROR_CODES.STORAGE_FULL,
        exitCode: 18,
        fields: { sqlstate: '53100', hint: expect.stringMatching(/^free space/) },
      });
      expect((refused as Error).message).toContain('the PostgreSQL commit journal could not be written');
      expect((refused as Error).message).toContain('(DISK_FULL)');
      await disk.free();
      expect(statfsSync(disk.mountPoint).bavail).toBeGreaterThan(0);
      await journal.createIntent(intent('sha256:full'));
      expect(await journal.get('sha256:full')).toMatchObject({ state: 'PREPARING' });
    } finally {
      await journal.close();
    }
  }, 120_000);

  it('is one server for the parts of one cell, stopped and unmounted when the last part lets go', async () => {
    const partCell = cell();
    const target = await oneServerForTheParts(() => holdFullDiskPostgres(partCell, service));
    expect(readFileSync('/proc/self/mounts', 'utf8')).not.toContain(target.disk.mountPoint);
  }, 120_000);
});
