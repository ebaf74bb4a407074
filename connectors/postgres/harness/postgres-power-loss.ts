import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { startLossyFs } from '../../../harness/env/lossy-fs.ts';
import type { PartCell } from '../../../harness/routes/parts.ts';
import type { PowerSupply } from '../../../harness/routes/server-control.ts';
import type { ControllablePostgres, PostgresService } from './env/postgres-services.ts';

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

interface Held {
  readonly started: Promise<{ owned: ControllablePostgres; power: PowerSupply; stop(): Promise<void> }>;
  users: number;
}

/** One server per cell folder: the target and the journal of a power-loss cell share it (one machine, one cut). */
const held = new Map<string, Held>();

/**
 * The cell's power-loss server, started on first use (the target's part) and shared by the
 * journal's part: lossyfs over `<cell>/power-durable-postgres`, the data directory on its mount,
 * PostgreSQL as its OS user there (the mount lets that user in), `fsync=off` for the unsafe variant.
 */
export async function holdPowerLossPostgres(
  cell: PartCell,
  service: PostgresService,
): Promise<PowerLossPostgres> {
  let entry = held.get(cell.dir);
  if (!entry) {
    entry = { started: start(cell, service, cell.powerLoss?.neverSyncs === true), users: 0 };
    held.set(cell.dir, entry);
  }
  entry.users++;
  const current = entry;
  let server: Awaited<Held['started']>;
  try {
    server = await current.started;
  } catch (error) {
    if (--current.users === 0) held.delete(cell.dir);
    throw error;
  }
  let released = false;
  return {
    owned: server.owned,
    power: server.power,
    async release() {
      if (released) return;
      released = true;
      if (--current.users > 0) return;
      held.delete(cell.dir);
      await server.stop();
    },
  };
}

async function start(cell: PartCell, service: PostgresService, neverSyncs: boolean) {
  if (!service.dedicatedAt)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `provider ${cell.environment.provider} cannot place a PostgreSQL data directory on a power-loss filesystem (provider local can)`,
    );
  const backing = join(cell.dir, 'power-durable-postgres');
  const mounted = await startLossyFs({ backing, openToOthers: true });
  if (!mounted.available) throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, mounted.reason);
  const fs = mounted.fs;
  const dataDir = join(fs.mountPoint, 'data');
  let owned: ControllablePostgres;
  try {
    owned = await service.dedicatedAt(dataDir, neverSyncs ? NEVER_SYNCS : []);
  } catch (error) {
    await fs[Symbol.asyncDispose]();
    throw error;
  }
  const power: PowerSupply = {
    dataDir,
    mountPoint: fs.mountPoint,
    cut: () => fs.cutPower(),
    syncAll: () => fs.syncAll(),
    stats: () => fs.stats(),
  };
  return {
    owned,
    power,
    async stop() {
      await owned[Symbol.asyncDispose]();
      await fs[Symbol.asyncDispose]();
      // tens of MB per cell: what survived was read through the server before this.
      await rm(backing, { recursive: true, force: true });
    },
  };
}
