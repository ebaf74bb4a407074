import { dirname } from 'node:path';
import { DponeError, ERROR_CODES, codedOr, invalidInput } from '../contracts/errors.ts';
import { resolveRouteId, urlEngine } from './route-names.ts';
import type { EndpointSpec, Workload } from '../contracts/workload.ts';
import type { SourceConnector, TargetConnector } from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type {
  ConnectorEndpoint,
  ConnectorPlugin,
  FenceRaiser,
  FenceReader,
  HostContext,
  Leftovers,
  PluginSource,
  PluginTarget,
  TargetOpenContext,
} from '../ports/connector-plugin.ts';
import { pluginConnectorVersion } from '../ports/connector-plugin.ts';
import { endpointPassword } from '../ports/built-in-engine.ts';
import { builtInConnector, builtInSides } from './engine-table.ts';
import { routeConnectorVersion as shippedConnectorVersion } from './certifications.ts';
import type { ConnectorCode } from '../contracts/certification.ts';
import { builtInRouteCode, engineDigest, pluginCode } from './route-code.ts';
import { locateWorkloadField } from './workload-file.ts';
import {
  UNSAFE_VARIANT_ENV,
  requestedUnsafeVariant,
  withoutRuntimeOnlyVariant,
} from '../test-hooks/index.ts';
import { UNSAFE_VARIANTS, unsafeVariantFlaws } from './unsafe-catalogue.ts';

/*
 * The route wiring, one module: a workload's route is resolved once into its two ends, each a
 * plug-in on the public contract (src/ports/connector-plugin.ts), either a built-in engine's
 * (engine-table.ts) or one loaded from the module an endpoint names (`connector:`); every caller
 * (run, the plain write of legacy/shadow, recovery) asks the resolved route.
 */

/** What a route's connectors are opened with. */
export interface RouteContext {
  readonly env: NodeJS.ProcessEnv;
  /** Passed to the target so its inner steps (e.g. `target.commit:before`) are fault points too. */
  readonly faults: FaultPoints;
  /** Recovery commands: only the fence is read, and opening must create nothing. */
  readonly readOnly?: boolean;
  /**
   * The run's log, for what a connector decided that changes no outcome but is worth saying;
   * names and types only, never a row value.
   */
  readonly note?: (message: string) => void;
}

/** A route's source and target, opened for one workload. The caller disposes both. */
export interface RouteConnectors {
  readonly source: SourceConnector;
  readonly target: TargetConnector;
}

/**
 * One end of a route. A built-in engine reads its endpoint's password itself (from HostContext.env,
 * by the workload's `password_env`) and answers the harness's unsafe variants inside its own open
 * (connectors/<engine>/*-unsafe-variants.ts, as before it was a plug-in), so the host hands it the
 * endpoint without a password, and an environment without a variant that leaves the target
 * certified, and applies the plug-in gate (PluginGate) only to a loaded plug-in.
 */
interface End<Part> {
  readonly part: Part;
  /** A loaded plug-in's gate of the harness's unsafe variants; null for a built-in engine. */
  readonly gate: PluginGate | null;
}

/** The two ends of a workload's route, resolved once. */
interface RouteEnds {
  /**
   * The source; null when a plug-in target's source is picked by the source URL's scheme and that
   * names no built-in source (refused when the source is opened).
   */
  readonly source: End<PluginSource> | null;
  readonly target: End<PluginTarget>;
  /**
   * A plug-in route's connector version (`<name>@<version>` of its target plug-in), or the pair
   * this runtime ships for a built-in route (null: none).
   */
  readonly connectorVersion: string | null;
  /** The code of the connectors the route runs (route-code.ts digests it), or null when this build has none. */
  readonly code: () => ConnectorCode[] | null;
}

/** The built-in source and target engines of the workload's route id (ROUTE_NOT_CERTIFIED when unknown). */
function builtInEnds(workload: Workload): RouteEnds {
  const sources = builtInSides('source');
  const targets = builtInSides('target');
  const parts = resolveRouteId(workload.route, workload.source?.url);
  const source = parts && Object.hasOwn(sources, parts.source) ? sources[parts.source] : undefined;
  const target = parts && Object.hasOwn(targets, parts.target) ? targets[parts.target] : undefined;
  if (!source || !target) {
    throw new DponeError(
      ERROR_CODES.ROUTE_NOT_CERTIFIED,
      `route "${workload.route}" has no connectors in this build (sources: ${Object.keys(sources).join(', ')}; targets: ${Object.keys(targets).join(', ')}; a route is SOURCE-to-TARGET)`,
    );
  }
  return {
    source: { part: source, gate: null },
    target: { part: target, gate: null },
    connectorVersion: shippedConnectorVersion(workload.route),
    code: () => builtInRouteCode(workload.route, workload.source.url),
  };
}

/**
 * The route of a workload whose target (or source) names a connector plug-in. The target comes
 * from the plug-in; the source from the plug-in named by `source.connector`, else from the
 * built-in source the source URL's scheme picks. Its connector version, shown in outputs, is the
 * target plug-in's `<name>@<version>`; a certification binds the plug-in's files (route-code.ts).
 * The loader is imported here, so a built-in route never loads it.
 */
async function pluginEnds(workload: Workload): Promise<RouteEnds> {
  if (workload.target.connector === undefined)
    throw new DponeError(
      ERROR_CODES.ROUTE_NOT_CERTIFIED,
      `route "${workload.route}" names a source connector but no target connector (target.connector)`,
      { field: 'target.connector' },
    );
  const { loadConnectorPlugin } = await import('./connector-plugins.ts');
  const gate = pluginGate();
  const pluginOf = async (side: 'source' | 'target'): Promise<{ plugin: ConnectorPlugin; url: string }> => {
    const field = `${side}.connector`;
    const loaded = await loadConnectorPlugin(workload[side].connector!, dirname(workload.file), field);
    if (!loaded.plugin[side])
      throw invalidInput(`${field}: ${loaded.plugin.meta.name} supplies no ${side} connector`, { field });
    return loaded;
  };
  const { plugin: targetPlugin, url: targetUrl } = await pluginOf('target');
  const sourceLoaded = workload.source.connector === undefined ? null : await pluginOf('source');
  const sourcePlugin = sourceLoaded?.plugin ?? null;
  // The code a certification binds: the plug-ins' module files (and what they import); a source the
  // URL's scheme picks is that built-in engine's code (none when the scheme names no engine).
  const code = (): ConnectorCode[] => {
    const target = pluginCode('target', targetPlugin.meta.name, targetUrl);
    if (sourceLoaded !== null)
      return [pluginCode('source', sourceLoaded.plugin.meta.name, sourceLoaded.url), target];
    const engine = urlEngine(workload.source.url);
    const digest = engine === null ? null : engineDigest(engine);
    return engine !== null && digest !== null ? [{ role: 'source', name: engine, digest }, target] : [target];
  };
  const schemeSource = (): End<PluginSource> | null => {
    const engine = urlEngine(workload.source.url);
    const source = engine === null ? undefined : builtInConnector(engine)?.source;
    return source ? { part: source, gate: null } : null;
  };
  return {
    source: sourcePlugin === null ? schemeSource() : { part: sourcePlugin.source!, gate },
    target: { part: targetPlugin.target!, gate },
    connectorVersion: pluginConnectorVersion(targetPlugin),
    code,
  };
}

/** The workload's two ends: a plug-in's when an endpoint names a connector module, else the built-in engines'. */
function routeEnds(workload: Workload): RouteEnds | Promise<RouteEnds> {
  if (workload.target?.connector !== undefined || workload.source?.connector !== undefined)
    return pluginEnds(workload);
  return builtInEnds(workload);
}

/**
 * What the host hands a connector for one endpoint of the workload. The password is read from the
 * variable `password_env` names only when opening a loaded plug-in (never for the fence location;
 * a built-in engine reads its own, see End).
 */
function endpointOf(
  workload: Workload,
  side: 'source' | 'target',
  env: NodeJS.ProcessEnv | null,
): ConnectorEndpoint {
  const spec: EndpointSpec = workload[side];
  const password = env === null ? undefined : endpointPassword(spec, side, env);
  return {
    url: spec.url,
    table: spec.table,
    columns: workload.data.columns,
    naturalKey: workload.data.natural_key,
    partitionColumn: workload.data.partition.column,
    baseDir: dirname(workload.file),
    ...(password === undefined ? {} : { password }),
    field: side,
  };
}

/** The endpoint of an end: with its password for a loaded plug-in, without for a built-in engine. */
function endEndpoint(
  end: End<unknown>,
  workload: Workload,
  side: 'source' | 'target',
  env: NodeJS.ProcessEnv,
) {
  return endpointOf(workload, side, end.gate === null ? null : env);
}

/** The workload's route looked up once (built-in or plug-in): everything a run asks of it. */
export interface ResolvedRoute {
  /** The route's certified fence, or `none` when the workload writes without one (`target.fence: none`). */
  readonly capability: TargetConnector['capability'];
  /**
   * The connector version the route runs: a plug-in's `<name>@<version>`, or the pair this runtime
   * ships for a built-in route (null: none), for display: a certification binds the connectors'
   * code by digest (route-code.ts).
   */
  readonly connectorVersion: string | null;
  /** Whether the route's target can be written without a fence (`target.fence: none`). */
  readonly plainWrites: boolean;
  /**
   * The code of the connectors the route runs, as a certification binds it (route-code.ts): the
   * plug-ins it names (their module files and what they import), else its built-in engines; a
   * plug-in target's scheme-picked source is that built-in engine. Computed when asked.
   */
  connectorCode(): ConnectorCode[] | null;
  /** Where the fence lives (a safe identity), from the workload alone; bad fence settings are INVALID_INPUT. */
  fenceLocation(): Promise<string>;
  /** Opens source and target; if the target fails to open, the open source is closed first. */
  open(context: RouteContext): Promise<RouteConnectors>;
  /** Opens only the target (recovery commands read its fence). The caller closes it. */
  openTarget(io: { readonly env: NodeJS.ProcessEnv }, readOnly?: boolean): Promise<TargetConnector>;
  /**
   * The target's own reader of its fence alone (PluginTarget.openFenceReader), read-only; else the
   * target opened read-only (its queryFence). The caller disposes it.
   */
  openFenceReader(io: { readonly env: NodeJS.ProcessEnv }): Promise<FenceReader>;
  /** The target's own fence raiser (PluginTarget.openFenceRaiser), or null when it brings none. */
  openFenceRaiser(io: { readonly env: NodeJS.ProcessEnv }): Promise<FenceRaiser> | null;
  /** The target's leftovers outside its commit (PluginTarget.openLeftovers), or null when it leaves none. */
  openLeftovers(io: { readonly env: NodeJS.ProcessEnv }, readOnly: boolean): Promise<Leftovers> | null;
}

/** Where a target written without a fence keeps it: nowhere (the journal records `none`). */
export const NO_FENCE_LOCATION = 'none';

/**
 * Resolves the workload's route once: ROUTE_NOT_CERTIFIED for an unknown one. A caller that needs
 * several answers about the route (dpone run) asks this object instead of resolving it again.
 */
export async function resolveRoute(workload: Workload): Promise<ResolvedRoute> {
  const ends = await routeEnds(workload);
  const { target } = ends;
  const fenceless = workload.target.fence === 'none';
  const plainWrites = typeof target.part.openPlain === 'function';
  // A built-in engine is told where a refused workload field is written (read only when asked),
  // and gets no variant that is the executor's alone (withoutRuntimeOnlyVariant): it knows the
  // shared catalogue and its own, the host the whole one.
  const host = (end: End<unknown>, env: NodeJS.ProcessEnv): HostContext => ({
    workload,
    env: end.gate === null ? withoutRuntimeOnlyVariant(env, UNSAFE_VARIANTS) : env,
    locate: (field: string) => locateWorkloadField(workload.file, field),
  });
  // Checked before anything opens (a fenceless workload on a route that cannot write without a fence).
  const checkFence = (): void => {
    if (fenceless && !plainWrites)
      throw invalidInput(`target.fence: none is not a setting of route ${workload.route}`, {
        field: 'target.fence',
      });
  };
  const openTarget = (context: RouteContext): Promise<TargetConnector> => {
    const endpoint = endEndpoint(target, workload, 'target', context.env);
    const opened: TargetOpenContext = {
      ...host(target, context.env),
      ...(context.note ? { note: context.note } : {}),
      faults: context.faults,
      readOnly: context.readOnly === true,
    };
    if (target.gate !== null)
      return fenceless
        ? target.gate.openPlain(target.part, endpoint, opened, context.env)
        : target.gate.open(target.part, endpoint, opened, context.env);
    return fenceless ? target.part.openPlain!(endpoint, opened) : target.part.open(endpoint, opened);
  };
  const openSource = (context: RouteContext): Promise<SourceConnector> => {
    const source = ends.source;
    if (source === null) {
      const sources = Object.keys(builtInSides('source')).join(', ');
      throw invalidInput(
        `source.url names no built-in source (sources: ${sources}); name a source.connector`,
        { field: 'source.url' },
      );
    }
    return source.part.open(endEndpoint(source, workload, 'source', context.env), {
      ...host(source, context.env),
      ...(context.note ? { note: context.note } : {}),
    });
  };
  const recovery = (io: { readonly env: NodeJS.ProcessEnv }, readOnly: boolean) =>
    [endEndpoint(target, workload, 'target', io.env), { ...host(target, io.env), readOnly }] as const;
  const route: ResolvedRoute = {
    capability: fenceless ? 'none' : target.part.capability,
    connectorVersion: ends.connectorVersion,
    plainWrites,
    connectorCode: () => ends.code(),
    fenceLocation: async () =>
      fenceless
        ? NO_FENCE_LOCATION
        : target.part.fenceLocation(endpointOf(workload, 'target', null), { workload }),
    async open(context) {
      checkFence();
      const source = await opening(`${workload.route} source`, () => openSource(context));
      try {
        const opened = await opening(`${workload.route} target`, () => openTarget(context));
        return { source, target: opened };
      } catch (error) {
        await source.close().catch(() => undefined);
        throw error;
      }
    },
    openTarget(io, readOnly = false) {
      checkFence();
      return opening(`${workload.route} target`, () =>
        openTarget({ env: io.env, faults: NO_FAULTS, readOnly }),
      );
    },
    openFenceReader(io) {
      const openReader = target.part.openFenceReader;
      return openReader ? openReader(...recovery(io, true)) : route.openTarget(io, true);
    },
    openFenceRaiser(io) {
      const openRaiser = target.part.openFenceRaiser;
      return openRaiser ? openRaiser(...recovery(io, false)) : null;
    },
    openLeftovers(io, readOnly) {
      const open = target.part.openLeftovers;
      return open ? open(...recovery(io, readOnly)) : null;
    },
  };
  return route;
}

/**
 * The harness's unsafe variants for a loaded plug-in (DPONE_HARNESS=1 and DPONE_UNSAFE_VARIANT):
 * only one the plug-in offers, and only one of the catalogue that is really unsafe on its
 * capability (a variant harmless there would make the sensitivity check prove nothing), looked
 * up in the whole catalogue (unsafe-catalogue.ts).
 */
interface PluginGate {
  open(
    target: PluginTarget,
    endpoint: ConnectorEndpoint,
    context: TargetOpenContext,
    env: NodeJS.ProcessEnv,
  ): Promise<TargetConnector>;
  openPlain(
    target: PluginTarget,
    endpoint: ConnectorEndpoint,
    context: TargetOpenContext,
    env: NodeJS.ProcessEnv,
  ): Promise<TargetConnector>;
}

function pluginGate(): PluginGate {
  return {
    open(target, endpoint, context, env) {
      const variant = context.readOnly ? null : requestedUnsafeVariant(env, UNSAFE_VARIANTS);
      if (variant === null) return target.open(endpoint, context);
      unsafeVariantFlaws(variant, target.capability);
      if (!target.unsafeVariants?.includes(variant) || !target.openUnsafe)
        throw invalidInput(`unsafe variant "${variant}" is not offered by this connector`, {
          field: UNSAFE_VARIANT_ENV,
        });
      return target.openUnsafe(variant, endpoint, context);
    },
    /**
     * The plug-in's target without a fence (`target.fence: none`). Under the harness only the
     * executor's own flaws apply here (a variant such as replay-unknown): a connector flaw needs a
     * fence to break. A connector that answers with any capability but `none` is refused: a fence
     * the workload switched off must not be certified as one.
     */
    async openPlain(target, endpoint, context, env) {
      const variant = context.readOnly ? null : requestedUnsafeVariant(env, UNSAFE_VARIANTS);
      if (variant !== null && Object.keys(unsafeVariantFlaws(variant, 'none')).length > 0)
        throw invalidInput(
          `unsafe variant "${variant}" breaks a fence; a target written without one has none`,
          {
            field: UNSAFE_VARIANT_ENV,
          },
        );
      const connector = await target.openPlain!(endpoint, context);
      if (connector.capability !== 'none') {
        await connector.close();
        throw invalidInput(
          `target.fence: none: the connector's openPlain() returned a target with capability ${connector.capability}, not none`,
          { field: 'target.fence' },
        );
      }
      return connector;
    },
  };
}

/** The capability of the workload's target (ResolvedRoute.capability). */
export async function routeCapability(workload: Workload): Promise<TargetConnector['capability']> {
  return (await resolveRoute(workload)).capability;
}

/** Opens only the route's target (recovery commands read its fence). The caller closes it. */
export async function openRouteTarget(
  workload: Workload,
  io: { readonly env: NodeJS.ProcessEnv },
  readOnly = false,
): Promise<TargetConnector> {
  return (await resolveRoute(workload)).openTarget(io, readOnly);
}

function opening<T>(what: string, open: () => Promise<T>): Promise<T> {
  // A module that failed to load or a driver error without our code: keep its text private.
  return codedOr(open, ERROR_CODES.ENVIRONMENT_UNAVAILABLE, `the ${what} connector could not be opened`);
}

/**
 * Opens the workload's source and target through the route registry. If the target fails to open,
 * the already-open source is closed before the error propagates.
 */
export async function openRouteConnectors(
  workload: Workload,
  context: RouteContext,
): Promise<RouteConnectors> {
  return (await resolveRoute(workload)).open(context);
}

/**
 * The route's source and its target written WITHOUT a fence, whatever the workload's fence
 * setting: the legacy and shadow rollout modes' plain write. A route whose connector has no plain
 * write path is bad input naming the route.
 */
export async function openPlainRouteConnectors(
  workload: Workload,
  context: RouteContext,
): Promise<RouteConnectors> {
  const route = await resolveRoute({ ...workload, target: { ...workload.target, fence: 'none' } });
  if (!route.plainWrites)
    throw invalidInput(
      `route ${workload.route} has no plain (fenceless) write path, so the legacy and shadow modes cannot run it: the deployment policy must say enforced`,
      { field: 'route' },
    );
  return route.open(context);
}
