import { invalidInput } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import type { SourceConnector, TargetConnector } from '../ports/connector.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type {
  BuiltInEngine,
  JournalEngine,
  OpenSource,
  OpenTarget,
  RouteContext,
  SourceEngine,
  TargetEngine,
} from '../ports/built-in-engine.ts';
import { FOLDER_ENGINES, folderEngine } from './engine-table.ts';
import { routeIdOf, urlEngine } from '../contracts/route-id.ts';
import { locateWorkloadField } from './workload-file.ts';

/**
 * The sources (or targets) of the folder engines that have one, by engine name. Their openers are
 * told where a refused workload field is written (RouteContext.locate: `file:line:column`).
 */
function enginesOf<Side extends 'source' | 'target'>(
  engines: Readonly<Record<string, BuiltInEngine>>,
  side: Side,
): Record<string, NonNullable<BuiltInEngine[Side]>> {
  return Object.fromEntries(
    Object.entries(engines).flatMap(([name, engine]) => {
      const entry = engine[side];
      return entry ? [[name, locating(entry)]] : [];
    }),
  );
}

/** An engine side whose openers get RouteContext.locate, reading the workload file only when asked. */
function locating<T extends SourceEngine | TargetEngine>(entry: T): T {
  const withLocate = (open: OpenSource | OpenTarget) => (workload: Workload, context: RouteContext) =>
    open(workload, { ...context, locate: (field: string) => locateWorkloadField(workload.file, field) });
  const located: Record<string, unknown> = { ...entry, open: withLocate(entry.open) };
  if ('openPlainTarget' in entry && entry.openPlainTarget)
    located.openPlainTarget = withLocate(entry.openPlainTarget);
  return located as T;
}

/**
 * The journal kept on a folder engine's server (its URL scheme names the engine), or undefined where the
 * engine keeps none; src/cli/journal-url.ts maps a URL scheme to the engine's name.
 */
export function engineJournal(engine: string): JournalEngine | undefined {
  return folderEngine(engine)?.journal;
}

/** A route's source and target, opened for one workload. The caller disposes both. */
export interface RouteConnectors {
  readonly source: SourceConnector;
  readonly target: TargetConnector;
}

/** A route's source and target, looked up from its id (built-in engines) or its plug-in module. */
export interface RouteEntry {
  /** The fence capability the route's target certifies (known before it is opened). */
  readonly capability: TargetConnector['capability'];
  /** Where the route's fence lives for this workload (TargetConnector.fenceLocation), without I/O. */
  readonly fenceLocation: (workload: Workload) => Promise<string>;
  readonly openSource: OpenSource;
  readonly openTarget: OpenTarget;
  /** The same target written without a fence (`target.fence: none`), where the connector has one. */
  readonly openPlainTarget?: OpenTarget;
  /** A plug-in route's connector version (`<name>@<version>`); built-ins: certifications.ts. */
  readonly connectorVersion?: string;
}

/**
 * Source engine → how to open it. A route is any source with any target (`SOURCE-to-TARGET`):
 * every source yields rows the targets write as they are. Each entry imports its adapter lazily,
 * so `dpone run` on the embedded route never loads a server driver.
 */
export const SOURCE_ENGINES: Readonly<Record<string, SourceEngine>> = enginesOf(FOLDER_ENGINES, 'source');

/** Target engine → how to open it. Unsafe variants answer only under DPONE_HARNESS=1. */
export const TARGET_ENGINES: Readonly<Record<string, TargetEngine>> = enginesOf(FOLDER_ENGINES, 'target');

/** Every route this build can run: each source engine with each target engine. */
export function runtimeRouteIds(): string[] {
  return Object.keys(SOURCE_ENGINES).flatMap((source) =>
    Object.keys(TARGET_ENGINES).map((target) => routeIdOf(source, target)),
  );
}

/**
 * A built-in source chosen by the source URL's scheme (the engine it names, src/contracts/route-id.ts):
 * a plug-in target's source when no source connector is named.
 */
export async function openSourceByScheme(
  workload: Workload,
  env: NodeJS.ProcessEnv,
): Promise<SourceConnector> {
  const engine = urlEngine(workload.source.url);
  if (engine === null || !Object.hasOwn(SOURCE_ENGINES, engine))
    throw invalidInput(
      `source.url names no built-in source (sources: ${Object.keys(SOURCE_ENGINES).join(', ')}); name a source.connector`,
      { field: 'source.url' },
    );
  return SOURCE_ENGINES[engine]!.open(workload, { env, faults: NO_FAULTS });
}
