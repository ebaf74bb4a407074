import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { startLossyFs } from '../../../harness/env/lossy-fs.ts';
import type { PartCell } from '../../../harness/routes/parts.ts';
import type { PowerSupply } from '../../../harness/routes/server-control.ts';
import type { ControllablePostgres, PostgresService } from './env/postgres-services.ts';
import { cellServerHolder, dedicatedStarter, startOnMount } from './postgres-cell-server.ts';
import type { StartedCellServer } from './postgres-cell-server.ts';

/**
 * The unsafe variant's server (`postgres-fsync-off`): it never syncs, neither the WAL at COMMIT nor
 * the data files at a checkpoint, so a power cut takes back what it acknowledged.
 */
export const NEVER_SYNCS: readonly string[] = ['fsync=off'];

/** A dedicated server whose data directory is on a power-loss filesystem of the cell. */
export interface PowerLossPostgres {
  readonly owned: ControllablePostgres;
  readonly power: PowerSupply;
  /** Hands back one part's hold; the last one stops the server, unmounts and removes the backing folder. */
  release(): Promise<void>;
}

const holdCellServer = cellServerHolder<PowerSupply>();

/**
 * The cell's power-loss server, started on first use (the target's part) and shared by the
 * journal's part: lossyfs over `<cell>/power-durable-postgres`, the data directory on its mount,
 * PostgreSQL as its OS user there (the mount lets that user in), `fsync=off` for the unsafe variant.
 */
export async function holdPowerLossPostgres(
  cell: PartCell,
  service: PostgresService,
): Promise<PowerLossPostgres> {
  const hold = await holdCellServer(cell, () => start(cell, service, cell.powerLoss?.neverSyncs === true));
  return { owned: hold.owned, power: hold.storage, release: () => hold.release() };
}

async function start(
  cell: PartCell,
  service: PostgresService,
  neverSyncs: boolean,
): Promise<StartedCellServer<PowerSupply>> {
  const dedicatedAt = dedicatedStarter(cell, service, 'power-loss');
  const backing = join(cell.dir, 'power-durable-postgres');
  const mounted = await startLossyFs({ backing, openToOthers: true });
  if (!mounted.available) throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, mounted.reason);
  const { fs } = mounted;
  const { owned, dataDir } = await startOnMount(fs, dedicatedAt, neverSyncs ? NEVER_SYNCS : []);
  const power: PowerSupply = {
    dataDir,
    mountPoint: fs.mountPoint,
    cut: () => fs.cutPower(),
    syncAll: () => fs.syncAll(),
    stats: () => fs.stats(),
  };
  return {
    owned,
    storage: power,
    async stop() {
      await owned[Symbol.asyncDispose]();
      await fs[Symbol.asyncDispose]();
      // tens of MB per cell: what survived was read through the server before this.
      await rm(backing, { recursive: true, force: true });
    },
  };
}
