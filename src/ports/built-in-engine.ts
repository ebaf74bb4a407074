import { DponeError, ERROR_CODES, invalidInput } from '../contracts/errors.ts';
import type { EndpointSpec, Workload } from '../contracts/workload.ts';
import type { HostContext, PluginSource } from './connector-plugin.ts';
import type { SourceConnector } from './connector.ts';

/**
 * What the built-in engines' plug-ins (`connectors/<engine>/engine.ts`, each a `defineConnector`
 * object on the public contract, src/ports/connector-plugin.ts) share: reading the host's context
 * and a server endpoint's options from the parsed workload. Here, in the ports, so an engine folder
 * reaches only contracts and ports (never src/cli).
 */

/**
 * The host's context of an open (HostContext): the host always gives it to the connectors it
 * opens; a test that opens a built-in by hand without it is an internal error, never a guess.
 */
export function hostOf(context: Partial<HostContext>): HostContext {
  if (context.workload === undefined || context.env === undefined)
    throw new DponeError(ERROR_CODES.INTERNAL, 'a built-in connector was opened without its workload');
  return context as HostContext;
}

/**
 * A server endpoint's canonical location for WorkloadRules.location: `engine://host:port/path#table`,
 * the host lower-cased, the engine's default port and schema filled in, the table lower-cased where
 * the server compares names case-insensitively; null for a URL that does not parse.
 */
export function serverLocation(
  engine: string,
  endpoint: EndpointSpec,
  rules: { readonly port: string; readonly schema?: string; readonly foldCase?: boolean },
): string | null {
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    return null;
  }
  const table =
    endpoint.table.includes('.') || rules.schema === undefined
      ? endpoint.table
      : `${rules.schema}.${endpoint.table}`;
  const shown = rules.foldCase ? table.toLowerCase() : table;
  return `${engine}://${url.hostname.toLowerCase()}:${url.port || rules.port}${url.pathname}#${shown}`;
}

/** The password of an endpoint, read only from the environment variable the workload names. */
export function endpointPassword(
  endpoint: EndpointSpec,
  field: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (!endpoint.password_env) return undefined;
  const password = env[endpoint.password_env];
  if (password === undefined) {
    throw invalidInput(`${field}.password_env names ${endpoint.password_env}, which is not set`, {
      field: `${field}.password_env`,
    });
  }
  return password;
}

/** The options every server source takes: URL, password from its env variable, table, columns. */
export function serverSource(workload: Workload, env: NodeJS.ProcessEnv) {
  const password = endpointPassword(workload.source, 'source', env);
  return {
    url: workload.source.url,
    ...(password === undefined ? {} : { password }),
    table: workload.source.table,
    columns: workload.data.columns,
  };
}

/**
 * A server engine's source entry: `version`, and an open that hands `open` the options every server
 * source takes (serverSource) and the environment; `open` loads the engine's source lazily.
 */
export function serverSourceEntry(
  version: string,
  open: (options: ReturnType<typeof serverSource>, env: NodeJS.ProcessEnv) => Promise<SourceConnector>,
): PluginSource & { readonly version: string } {
  return {
    version,
    open: async (_endpoint, opened) => {
      const { workload, env } = hostOf(opened);
      return open(serverSource(workload, env), env);
    },
  };
}

/** The options every server target takes, before its own (faults, env, partition column). */
export function serverTarget(workload: Workload, env: NodeJS.ProcessEnv) {
  const password = endpointPassword(workload.target, 'target', env);
  const fenceSchema = workload.target.fence_schema;
  return {
    url: workload.target.url,
    ...(password === undefined ? {} : { password }),
    table: workload.target.table,
    columns: workload.data.columns,
    naturalKey: workload.data.natural_key,
    ...(fenceSchema === undefined ? {} : { fenceSchema }),
  };
}
