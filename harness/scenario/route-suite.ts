import { basename } from 'node:path';
import type { Route } from '../routes/route.ts';
import type { FaultSpec, LoadedScenario } from './scenario-schema.ts';

/**
 * Whether a route can run one fault of a scenario at all: network and lost-ack faults need the
 * target's connection behind a proxy, server faults a server to kill, loss faults that name modes
 * those modes. A suite leaves out what the route cannot run (a scenario given by --scenario still
 * runs, and such cells are UNVERIFIED with the reason).
 */
export function routeRuns(route: Route, fault: FaultSpec): boolean {
  const { capabilities, lossModes } = route;
  switch (fault.kind) {
    case 'network':
    case 'lost-ack':
      return capabilities.proxies.includes('target');
    case 'server-kill':
      return capabilities.serverKills.target.length + capabilities.serverKills.journal.length > 0;
    case 'journal-loss':
      return (fault.modes ?? []).every((mode) => lossModes?.journal.includes(mode));
    case 'fence-loss':
      return (fault.modes ?? []).every((mode) => lossModes?.fence.includes(mode));
    default:
      return true;
  }
}

/**
 * Whether a suite's scenario belongs in a route's suite: a file named `<engine>-*.yaml` for one of
 * `engines` is for routes whose TARGET is that engine (`<engine>-pause.yaml`,
 * `<engine>-journal-loss.yaml`); a fenceless scenario (`workload.fence: none`) only for routes whose
 * target has plain writes; every other file is for every route that can run all its faults.
 */
export function scenarioFits(
  loaded: LoadedScenario,
  route: Route,
  target: string,
  engines: readonly string[],
): boolean {
  const name = basename(loaded.file);
  const named = engines.find((engine) => name.startsWith(`${engine}-`));
  if (named !== undefined && named !== target) return false;
  if (loaded.scenario.workload?.fence === 'none' && route.capabilities.plainWrites !== true) return false;
  return loaded.scenario.faults.every((fault) => routeRuns(route, fault));
}
