import { isDponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { CellFixture } from '../routes/route.ts';
import type { IsolateOptions, ServerControl } from '../routes/server-control.ts';
import type { CellOutcome, CellRun } from './fault.ts';
import { unverifiedOutcome } from './fault.ts';

/** Where a server keeps its data: on the mount of a filesystem the cell controls. */
interface OnMount {
  readonly dataDir: string;
  readonly mountPoint: string;
}

/** The cell's servers whose data directory is on the storage the fault drives. */
export interface ServersOnStorage<S extends ServerControl> {
  /** The target's server. */
  readonly target: S;
  /** One server per data directory (the journal's part may share the target's server). */
  readonly all: readonly S[];
}

/**
 * Gives the cell servers of its own on the storage a server storage fault drives (power loss, a
 * full disk), believed only when shown: each server's `storage` must say where its data is, and it
 * must lie under that filesystem's mount. A route that cannot, or a machine without the filesystem,
 * gives an UNVERIFIED outcome naming `requirement`.
 */
export async function serversOnStorage<K extends 'power' | 'disk'>(
  run: CellRun,
  options: IsolateOptions,
  storage: K,
  what: { readonly filesystem: string; readonly requirement: string; readonly cannot: string },
): Promise<ServersOnStorage<ServerControl & Required<Pick<ServerControl, K>>> | CellOutcome> {
  type On = ServerControl & Required<Pick<ServerControl, K>>;
  const { fixture } = run;
  if (!fixture.isolateServers) return unverifiedOutcome(`route ${run.cell.route} ${what.cannot}`);
  let servers: Awaited<ReturnType<NonNullable<CellFixture['isolateServers']>>>;
  try {
    servers = await fixture.isolateServers(options);
  } catch (error) {
    if (isDponeError(error) && error.code === ERROR_CODES.ENVIRONMENT_UNAVAILABLE)
      return unverifiedOutcome(error.message, what.requirement);
    throw error;
  }
  const on = (server: ServerControl | undefined): OnMount | undefined => server?.[storage];
  const byData = new Map<string, On>();
  for (const server of [servers.target, servers.journal]) {
    const place = on(server);
    if (place && place.dataDir.startsWith(`${place.mountPoint}/`)) byData.set(place.dataDir, server as On);
  }
  const targetPlace = on(servers.target);
  const target = targetPlace ? byData.get(targetPlace.dataDir) : undefined;
  if (target === undefined)
    return unverifiedOutcome(
      `route ${run.cell.route}: its target server does not keep its data directory on ${what.filesystem}`,
      what.requirement,
    );
  return { target, all: [...byData.values()] };
}

/** True when `serversOnStorage` gave the servers rather than an outcome. */
export function gotServers<S extends ServerControl>(
  value: ServersOnStorage<S> | CellOutcome,
): value is ServersOnStorage<S> {
  return 'all' in value;
}
