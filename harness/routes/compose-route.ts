import { builtInRouteCode } from '../../src/cli/route-code.ts';
import { cp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { composeConnectorVersion } from '../../src/cli/certifications.ts';
import { UNSAFE_VARIANTS, unsafeVariantsFor } from '../../src/cli/unsafe-catalogue.ts';
import { generateDataset } from '../data/dataset.ts';
import type { ServiceName } from '../env/services.ts';
import { TOXIPROXY } from '../env/services.ts';
import { ComposedCell } from './composed-cell.ts';
import type { RouteParts } from './composed-cell.ts';
import type { JournalPart, SourcePart, TargetPart } from './parts.ts';
import type { ProxiedConnection, Route } from './route.ts';
import { stateFingerprint } from './state-fingerprint.ts';

/** The runtime's checkpoints and evidence (execution.state_dir of the generated workload). */
const STATE_FOLDER = 'state';

/** Every service the parts need, in the providers' start order (`order`: every service there is). */
function servicesOf(
  parts: readonly { readonly services: readonly ServiceName[] }[],
  order: readonly ServiceName[],
): ServiceName[] {
  const wanted = new Set(parts.flatMap((part) => part.services));
  return order.filter((name) => wanted.has(name));
}

/**
 * The variants a route is certified against: its target's own flaws and the executor's (variants
 * with no target flaw, such as io-before-intent, which every target's sealed storage must show);
 * for a target that can also be written without a fence (`plainWrites`) every variant unsafe on its capability (the
 * executor's, such as io-before-intent, included) and on capability none (replay-unknown). The
 * planner gives fenced cells the first and fenceless cells the second.
 */
function routeVariants(target: TargetPart): string[] {
  // The executor's own flaws (no target flaw: io-before-intent) apply to every target.
  const executor = unsafeVariantsFor(target.capability).filter(
    (name) => Object.keys(UNSAFE_VARIANTS[name]!.flaws).length === 0,
  );
  const names = target.plainWrites
    ? [...target.unsafeVariants, ...unsafeVariantsFor(target.capability), ...unsafeVariantsFor('none')]
    : [...target.unsafeVariants, ...executor];
  return [...new Set(names)].sort();
}

/**
 * A route from its three parts: the id `SOURCE-to-TARGET`, the services to start (in
 * `serviceOrder`, the registry's), the connectors'
 * versions and code (what a certification binds), the target's unsafe variants and loss modes, and what the
 * faults may do to its cells. When every part keeps its state in the cell folder (embedded
 * engines) the route also copies and fingerprints cell state, so depth-2 cells start from a
 * recorded kill instead of killing a first attempt again.
 */
export function composeRoute(
  source: SourcePart,
  target: TargetPart,
  journal: JournalPart,
  serviceOrder: readonly ServiceName[],
): Route {
  const id = `${source.engine}-to-${target.engine}`;
  const parts: RouteParts = { id, source, target, journal };
  const services = servicesOf([source, target, journal], serviceOrder);
  const proxied = (part: { readonly services: readonly ServiceName[] }) => part.services.includes(TOXIPROXY);
  const proxies: ProxiedConnection[] = [
    ...(proxied(target) ? (['target'] as const) : []),
    ...(proxied(journal) ? (['journal'] as const) : []),
  ];
  const files = [source, target, journal].flatMap((part) =>
    (part.files ?? []).map((name) => ({ name, dump: (path: string) => part.dumpFile!(path) })),
  );
  const fileBased = [source, target, journal].every(
    (part) => part.files !== undefined && part.dumpFile !== undefined,
  );
  const route: Route = {
    id,
    defaultProvider: services.length === 0 ? 'embedded' : 'local',
    services,
    journal: journal.kind,
    connectorVersion: composeConnectorVersion(source.connectorVersion, target.connectorVersion),
    code: () => builtInRouteCode(id) ?? [],
    unsafeVariants: routeVariants(target),
    capabilities: {
      proxies,
      serverKills: { target: target.serverKills ?? [], journal: journal.serverKills ?? [] },
      networkPhases: target.networkPhases ?? {},
      lateRows: true,
      plainWrites: target.plainWrites === true,
    },
    lossModes: { journal: journal.lossModes, fence: target.fenceLossModes },
    async prepareCell(cellDir, options, environment) {
      const dataset = generateDataset(options);
      return ComposedCell.create(parts, cellDir, options, environment, dataset);
    },
  };
  if (!fileBased) return route;
  // A database file and the side files its engine keeps beside it (-wal, -shm, -journal) go together.
  const durable = (name: string) =>
    name === STATE_FOLDER ||
    files.some(
      ({ name: file }) =>
        name === file || (/^-(wal|shm|journal)$/.test(name.slice(file.length)) && name.startsWith(file)),
    );
  return {
    ...route,
    async copyCellState(fromDir: string, toDir: string): Promise<boolean> {
      for (const name of (await readdir(toDir)).filter(durable))
        await rm(join(toDir, name), { recursive: true, force: true });
      for (const name of (await readdir(fromDir)).filter(durable))
        await cp(join(fromDir, name), join(toDir, name), { recursive: true });
      return true;
    },
    durableFingerprint: (dir: string) => stateFingerprint(dir, files, STATE_FOLDER),
  };
}
