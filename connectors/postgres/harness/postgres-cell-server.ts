import type { PartCell } from '../../../harness/routes/parts.ts';
import type { ControllablePostgres } from './env/postgres-services.ts';

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
