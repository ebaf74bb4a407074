import { dirname } from 'node:path';
import { DponeError, ERROR_CODES, invalidInput } from '../contracts/errors.ts';
import type { EndpointSpec, Workload } from '../contracts/workload.ts';
import type { ConnectorEndpoint, ConnectorPlugin, PluginTarget } from '../ports/connector-plugin.ts';
import { pluginConnectorVersion } from '../ports/connector-plugin.ts';
import { unsafeVariantFlaws } from '../ports/unsafe-variants.ts';
import { UNSAFE_VARIANT_ENV, requestedUnsafeVariant } from '../test-hooks/index.ts';
import { loadConnectorPlugin } from './connector-plugins.ts';
import type { RouteContext } from '../ports/built-in-engine.ts';
import { endpointPassword } from '../ports/built-in-engine.ts';
import type { RouteEntry } from './built-in-engines.ts';
import { openSourceByScheme } from './built-in-engines.ts';

/**
 * What the host hands a plug-in for one endpoint of the workload. The password is read from the
 * variable `password_env` names only when opening (never for the fence location).
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

async function pluginOf(workload: Workload, side: 'source' | 'target'): Promise<ConnectorPlugin> {
  const field = `${side}.connector`;
  const { plugin } = await loadConnectorPlugin(workload[side].connector!, dirname(workload.file), field);
  if (!plugin[side])
    throw invalidInput(`${field}: ${plugin.meta.name} supplies no ${side} connector`, { field });
  return plugin;
}

/**
 * Opens the plug-in's target, or under DPONE_HARNESS=1 the unsafe variant DPONE_UNSAFE_VARIANT
 * names: only one the plug-in offers, and only one of the catalogue that is really unsafe on its
 * capability (a variant harmless there would make the sensitivity check prove nothing).
 */
function openTarget(target: PluginTarget, endpoint: ConnectorEndpoint, context: RouteContext) {
  const open = { faults: context.faults, readOnly: context.readOnly === true };
  const variant = context.readOnly ? null : requestedUnsafeVariant(context.env);
  if (variant === null) return target.open(endpoint, open);
  unsafeVariantFlaws(variant, target.capability);
  if (!target.unsafeVariants?.includes(variant) || !target.openUnsafe)
    throw invalidInput(`unsafe variant "${variant}" is not offered by this connector`, {
      field: UNSAFE_VARIANT_ENV,
    });
  return target.openUnsafe(variant, endpoint, open);
}

/**
 * The route of a workload whose target (or source) names a connector plug-in. The target comes
 * from the plug-in; the source from the plug-in named by `source.connector`, else from the
 * built-in source the source URL's scheme picks. Its connector version, shown in outputs, is the
 * target plug-in's `<name>@<version>`; a certification binds the plug-in's files (route-code.ts).
 */
export async function pluginRouteEntry(workload: Workload): Promise<RouteEntry> {
  if (workload.target.connector === undefined)
    throw new DponeError(
      ERROR_CODES.ROUTE_NOT_CERTIFIED,
      `route "${workload.route}" names a source connector but no target connector (target.connector)`,
      { field: 'target.connector' },
    );
  const targetPlugin = await pluginOf(workload, 'target');
  const sourcePlugin = workload.source.connector === undefined ? null : await pluginOf(workload, 'source');
  const target = targetPlugin.target!;
  return {
    capability: target.capability,
    connectorVersion: pluginConnectorVersion(targetPlugin),
    fenceLocation: async (w) => target.fenceLocation(endpointOf(w, 'target', null)),
    openSource: (w, context) =>
      sourcePlugin === null
        ? openSourceByScheme(w, context.env)
        : sourcePlugin.source!.open(endpointOf(w, 'source', context.env)),
    openTarget: (w, context) => openTarget(target, endpointOf(w, 'target', context.env), context),
    ...(target.openPlain
      ? { openPlainTarget: (w, context) => openPlain(target, endpointOf(w, 'target', context.env), context) }
      : {}),
  };
}

/**
 * Opens the plug-in's target without a fence (`target.fence: none`). Under the harness only the
 * executor's own flaws apply here (a variant such as replay-unknown): a connector flaw needs a
 * fence to break. A connector that answers with any capability but `none` is refused: a fence the
 * workload switched off must not be certified as one.
 */
async function openPlain(target: PluginTarget, endpoint: ConnectorEndpoint, context: RouteContext) {
  const variant = context.readOnly ? null : requestedUnsafeVariant(context.env);
  if (variant !== null && Object.keys(unsafeVariantFlaws(variant, 'none')).length > 0)
    throw invalidInput(`unsafe variant "${variant}" breaks a fence; a target written without one has none`, {
      field: UNSAFE_VARIANT_ENV,
    });
  const connector = await target.openPlain!(endpoint, {
    faults: context.faults,
    readOnly: context.readOnly === true,
  });
  if (connector.capability !== 'none') {
    await connector.close();
    throw invalidInput(
      `target.fence: none: the connector's openPlain() returned a target with capability ${connector.capability}, not none`,
      { field: 'target.fence' },
    );
  }
  return connector;
}
