import { join } from 'node:path';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import type { PartCell } from '../../../harness/routes/parts.ts';
import type { ControllablePostgres, PostgresService } from './env/postgres-services.ts';

/** A cell's own server on a storage of the cell's (a power-loss filesystem, a size-limited one). */
export interface StartedCellServer<S> {
  readonly owned: ControllablePostgres;
  /** What the storage faults drive: the cut of a power-loss filesystem, the ballast of a full one. */
  readonly storage: S;
  /** Stops the server and takes its storage away. */
  stop(): Promise<void>;
}

/** One part's hold on the cell's server. */
export interface CellServerHold<S> {
  readonly owned: ControllablePostgres;
  readonly storage: S;
  /** Hands back this part's hold; the last one stops the server and takes its storage away. */
  release(): Promise<void>;
}

interface Held<S> {
  readonly started: Promise<StartedCellServer<S>>;
  users: number;
}

/**
 * One server per cell folder, shared by the parts that ask for it (the target and the journal of a
 * storage cell: one machine, one disk): started by the first part's `start`, stopped when the last
 * part lets go.
 */
export function cellServerHolder<S>(): (
  cell: PartCell,
  start: () => Promise<StartedCellServer<S>>,
) => Promise<CellServerHold<S>> {
  const held = new Map<string, Held<S>>();
  return async (cell, start) => {
    let entry = held.get(cell.dir);
    if (!entry) {
      entry = { started: start(), users: 0 };
      held.set(cell.dir, entry);
    }
    entry.users++;
    const current = entry;
    let server: StartedCellServer<S>;
    try {
      server = await current.started;
    } catch (error) {
      if (--current.users === 0) held.delete(cell.dir);
      throw error;
    }
    let released = false;
    return {
      owned: server.owned,
      storage: server.storage,
      async release() {
        if (released) return;
        released = true;
        if (--current.users > 0) return;
        held.delete(cell.dir);
        await server.stop();
      },
    };
  };
}

/**
 * How the provider starts a dedicated server for a cell whose data directory must be on
 * `filesystem`: ENVIRONMENT_UNAVAILABLE (before anything is mounted) when it cannot place one.
 */
export function dedicatedStarter(
  cell: PartCell,
  service: PostgresService,
  filesystem: string,
): NonNullable<PostgresService['dedicatedAt']> {
  if (!service.dedicatedAt)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `provider ${cell.environment.provider} cannot place a PostgreSQL data directory on a ${filesystem} filesystem (provider local can)`,
    );
  return service.dedicatedAt;
}

/** The cell's server started with its data directory (`data`) on `mount`; the mount is let go when it does not start. */
export async function startOnMount(
  mount: AsyncDisposable & { readonly mountPoint: string },
  dedicatedAt: NonNullable<PostgresService['dedicatedAt']>,
  settings: readonly string[],
): Promise<{ readonly owned: ControllablePostgres; readonly dataDir: string }> {
  const dataDir = join(mount.mountPoint, 'data');
  try {
    return { owned: await dedicatedAt(dataDir, settings), dataDir };
  } catch (error) {
    await mount[Symbol.asyncDispose]();
    throw error;
  }
}
