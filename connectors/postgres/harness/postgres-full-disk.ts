import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { mountTmpfs } from '../../../harness/env/tmpfs-mount.ts';
import type { PartCell } from '../../../harness/routes/parts.ts';
import type { LimitedDisk } from '../../../harness/routes/server-control.ts';
import type { ControllablePostgres, PostgresService } from './env/postgres-services.ts';
import { cellServerHolder, dedicatedStarter, startOnMount } from './postgres-cell-server.ts';
import type { StartedCellServer } from './postgres-cell-server.ts';

/**
 * The size of a full-disk cell's filesystem: a fresh cluster (one 16 MB WAL file and the catalogs,
 * about 40 MB) with room for the cell's tables and the WAL it writes, then filled by the fault.
 */
export const FULL_DISK_SIZE = '128m';

/** A dedicated server whose data directory is on a size-limited filesystem of the cell. */
export interface FullDiskPostgres {
  readonly owned: ControllablePostgres;
  readonly disk: LimitedDisk;
  /** Hands back one part's hold; the last one stops the server and unmounts the filesystem. */
  release(): Promise<void>;
}

const holdCellServer = cellServerHolder<LimitedDisk>();

/**
 * The cell's full-disk server, started on first use (the target's part) and shared by the
 * journal's part: a tmpfs of FULL_DISK_SIZE at `<cell>/full-disk-postgres`, the data directory on it.
 * Mounting needs root; elsewhere ENVIRONMENT_UNAVAILABLE with the reason (the cell is UNVERIFIED).
 */
export async function holdFullDiskPostgres(
  cell: PartCell,
  service: PostgresService,
): Promise<FullDiskPostgres> {
  const hold = await holdCellServer(cell, () => start(cell, service));
  return { owned: hold.owned, disk: hold.storage, release: () => hold.release() };
}

async function start(cell: PartCell, service: PostgresService): Promise<StartedCellServer<LimitedDisk>> {
  const dedicatedAt = dedicatedStarter(cell, service, 'size-limited');
  const mounted = await mountTmpfs(join(cell.dir, 'full-disk-postgres'), FULL_DISK_SIZE);
  if (!mounted.available) throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, mounted.reason);
  const { mount } = mounted;
  const { owned, dataDir } = await startOnMount(mount, dedicatedAt, []);
  let ballast: string | null = null;
  const disk: LimitedDisk = {
    dataDir,
    mountPoint: mount.mountPoint,
    async fill() {
      ballast ??= mount.fill();
    },
    async free() {
      if (ballast !== null) rmSync(ballast, { force: true });
      ballast = null;
    },
  };
  return {
    owned,
    storage: disk,
    async stop() {
      // The space back first: a server stopping on a full disk cannot write its shutdown checkpoint.
      await disk.free();
      await owned[Symbol.asyncDispose]();
      await mount[Symbol.asyncDispose]();
    },
  };
}
