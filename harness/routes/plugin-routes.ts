import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidInput } from '../../src/contracts/errors.ts';
import { loadConnectorPlugin } from '../../src/cli/connector-plugins.ts';
import { PLUGIN_ROUTE_ID, isBuiltInRouteId } from '../../src/cli/workload-fields.ts';
import type { EmbeddedHost } from './parts.ts';
import { pluginRoute } from './plugin-route.ts';
import { embeddedHost } from './route-registry.ts';
import type { Route } from './route.ts';
import type { PluginHarness } from './target-part.ts';

/** Where a project lists the connector plug-ins its certification runs know: package.json `dpone.connectors`. */
export const CONNECTORS_FIELD = 'package.json dpone.connectors';

/** The plug-in modules listed in `<cwd>/package.json` (`"dpone": {"connectors": [...]}`), as given. */
export async function configuredConnectors(cwd: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(join(cwd, 'package.json'), 'utf8');
  } catch {
    return [];
  }
  let listed: unknown;
  try {
    listed = (JSON.parse(text) as { dpone?: { connectors?: unknown } }).dpone?.connectors;
  } catch {
    return [];
  }
  if (listed === undefined) return [];
  if (!Array.isArray(listed) || !listed.every((item) => typeof item === 'string'))
    throw invalidInput(`${CONNECTORS_FIELD} must be a list of module names or paths`, {
      field: CONNECTORS_FIELD,
    });
  return listed as string[];
}

/** The runtime's state folder in a cell (execution.state_dir of the generated workload). */
const STATE_FOLDER = 'state';
/** A target state file: a plain name in the cell folder (no separator, not `.` or `..`). */
const STATE_FILE = /^(?!\.\.?$)[\w.-]+$/;
/** Names the harness writes per cell (a restored copy of another cell's would point at that cell). */
const HARNESS_FILE = /^(workload.*\.yaml|trace-.*|airflow|killed-.*)$/;

function checkHarness(harness: unknown, name: string, host: EmbeddedHost): PluginHarness {
  const parts = harness as Partial<PluginHarness> | undefined;
  if (!parts || !Array.isArray(parts.routes) || typeof parts.target?.prepare !== 'function')
    throw invalidInput(
      `connector ${name} exports no harness parts (harness.routes, harness.target.prepare)`,
      {
        field: '--connector',
      },
    );
  for (const route of parts.routes) {
    if (!PLUGIN_ROUTE_ID.test(route.id) || isBuiltInRouteId(route.id))
      throw invalidInput(`connector ${name} declares route "${route.id}": not a plug-in route id`, {
        field: '--connector',
      });
    if (route.source !== host.engine)
      throw invalidInput(`connector ${name} route ${route.id}: source must be "${host.engine}"`, {
        field: '--connector',
      });
  }
  const stateFiles: unknown = parts.target.stateFiles;
  if (
    (stateFiles !== undefined &&
      (!Array.isArray(stateFiles) ||
        !stateFiles.every(
          (file) =>
            typeof file === 'string' &&
            STATE_FILE.test(file) &&
            !host.isDurable(file) &&
            file !== STATE_FOLDER &&
            !HARNESS_FILE.test(file),
        ))) ||
    (parts.target.dumpState !== undefined && typeof parts.target.dumpState !== 'function')
  )
    throw invalidInput(
      `connector ${name} harness.target.stateFiles must list plain file names of its own (not source.db, journal.db, state, workload*.yaml), and dumpState be a function`,
      { field: '--connector' },
    );
  const network: unknown = parts.target.network;
  if (network !== undefined && typeof network !== 'boolean')
    throw invalidInput(
      `connector ${name} harness.target.network must be true or false (true: each prepared target declares its server, and the harness proxies it)`,
      { field: '--connector' },
    );
  return parts as PluginHarness;
}

/**
 * The routes of the connector plug-ins a run knows: `--connector` modules and those listed in
 * package.json, each loaded (relative paths against `cwd`) and checked. Keyed by route id.
 */
export async function pluginRoutes(
  cwd: string,
  extra: readonly string[] = [],
): Promise<Record<string, () => Promise<Route>>> {
  const specifiers = [...new Set([...(await configuredConnectors(cwd)), ...extra])];
  const routes: Record<string, () => Promise<Route>> = {};
  if (specifiers.length === 0) return routes;
  const host = await embeddedHost();
  for (const specifier of specifiers) {
    const loaded = await loadConnectorPlugin(specifier, cwd, '--connector');
    const harness = checkHarness(loaded.plugin.harness, loaded.plugin.meta.name, host);
    if (!loaded.plugin.target)
      throw invalidInput(`connector ${loaded.plugin.meta.name} supplies no target`, { field: '--connector' });
    for (const declaration of harness.routes) {
      if (routes[declaration.id])
        throw invalidInput(`two connectors declare route "${declaration.id}"`, { field: '--connector' });
      routes[declaration.id] = async () => pluginRoute(loaded, declaration, host);
    }
  }
  return routes;
}
