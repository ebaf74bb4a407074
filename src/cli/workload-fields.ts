import { invalidInput } from '../contracts/errors.ts';
import type { IntentData } from '../contracts/identity.ts';
import { parseIdentity, parseIntent } from '../contracts/identity.ts';
import { urlPasswordProblem } from '../contracts/redact-url.ts';
import type { EndpointSpec, TargetSpec, Workload } from '../contracts/workload.ts';
import { LOAD_STRATEGIES, intentDataOf } from '../contracts/workload.ts';
import {
  BUILT_IN_ENGINES,
  FILE_URL_SCHEMES,
  ROUTE_ALIASES,
  TARGET_ALIASES,
  resolveRouteId,
  urlEngine,
} from './route-names.ts';
import type { RouteParts } from '../contracts/route-id.ts';
import { BUILT_IN_CONNECTORS, builtInConnector } from './engine-table.ts';
import { targetCreate } from './workload-create.ts';
import { exampleRouteIds } from './engine-roles.ts';

/** Short names a workload may use for a route (route-names.ts derives them from the engines' registrations). */
export const WORKLOAD_ROUTE_ALIASES = [
  ...Object.keys(ROUTE_ALIASES),
  ...Object.keys(TARGET_ALIASES),
] as const;

/**
 * A plug-in route's id (a workload whose target or source names a `connector` module): it names
 * the route's certification file, so it is file-name safe, and never a built-in route's id.
 */
export const PLUGIN_ROUTE_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** An npm package name or a path: printable, one line, no spaces at either end. */
const MODULE_SPECIFIER = /^\S(.*\S)?$/;

export const DEFAULT_LEASE_TTL_MS = 30_000;
/**
 * Bounds of `execution.lease_ttl_ms`. Past a day a crashed executor would block every retry for
 * longer than any schedule waits; the journal refuses expiries it could not store and read back.
 */
export const LEASE_TTL_RANGE_MS = { min: 1, max: 86_400_000 } as const;

const TOP_LEVEL = ['identity', 'intent', 'route', 'source', 'target', 'data', 'journal', 'execution'];
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TABLE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Fields = Record<string, unknown>;

function map(value: unknown, field: string, allowed: readonly string[]): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput(`${field || 'the workload'} must be a map`, { field: field || '(root)' });
  }
  const prefix = field ? `${field}.` : '';
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw invalidInput(`${prefix}${key} is not a workload field (allowed here: ${allowed.join(', ')})`, {
        field: `${prefix}${key}`,
      });
    }
  }
  return value as Fields;
}

function need(value: unknown, field: string): unknown {
  if (value === undefined || value === null) throw invalidInput(`${field} is missing`, { field });
  return value;
}

function present(record: Fields, key: string, field: string): unknown {
  return need(record[key], field);
}

function text(record: Fields, key: string, field: string, pattern?: RegExp, what?: string): string {
  const value = present(record, key, field);
  if (typeof value !== 'string') {
    throw invalidInput(`${field} must be a string (quote it), got ${typeof value}`, { field });
  }
  if (value.trim() === '') throw invalidInput(`${field} must not be empty`, { field });
  if (pattern && !pattern.test(value)) throw invalidInput(`${field} must be ${what}`, { field });
  return value;
}

function names(record: Fields, key: string, field: string): string[] {
  const value = present(record, key, field);
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidInput(`${field} must be a non-empty list of column names`, { field });
  }
  const seen = new Set<string>();
  value.forEach((item: unknown, index) => {
    if (typeof item !== 'string' || !IDENTIFIER.test(item)) {
      throw invalidInput(`${field}[${index}] must be a column name (letters, digits, _)`, {
        field: `${field}[${index}]`,
      });
    }
    if (seen.has(item)) {
      throw invalidInput(`${field}[${index}] repeats a column`, { field: `${field}[${index}]` });
    }
    seen.add(item);
  });
  return value as string[];
}

/** A password written into the file would end up in logs and evidence: secrets come from the env. */
function noPassword(url: string, field: string, instead: string): string {
  const problem = urlPasswordProblem(url, FILE_URL_SCHEMES);
  if (problem)
    throw invalidInput(`${field} ${problem}; name an environment variable in ${instead}`, { field });
  return url;
}

/** The keys an endpoint map may hold. */
const ENDPOINT_KEYS = {
  source: ['url', 'table', 'password_env', 'connector'],
  target: [
    'url',
    'table',
    'password_env',
    'connector',
    'fence_schema',
    'create',
    'fence',
    'confirm_complete',
  ],
} as const;

function endpoint(value: unknown, field: 'source' | 'target'): EndpointSpec {
  const record = map(need(value, field), field, ENDPOINT_KEYS[field]);
  const url = noPassword(text(record, 'url', `${field}.url`), `${field}.url`, `${field}.password_env`);
  const table = text(record, 'table', `${field}.table`, TABLE, 'a table name, optionally schema.table');
  const passwordEnv =
    record.password_env === undefined
      ? undefined
      : text(record, 'password_env', `${field}.password_env`, ENV_NAME, 'an environment variable name');
  const connector =
    record.connector === undefined
      ? undefined
      : text(record, 'connector', `${field}.connector`, MODULE_SPECIFIER, 'an npm package name or a path');
  return {
    url,
    table,
    ...(passwordEnv ? { password_env: passwordEnv } : {}),
    ...(connector ? { connector } : {}),
  };
}

/**
 * A built-in route's id: an alias, or a `SOURCE-to-TARGET` whose target is a built-in engine (a
 * plug-in may not take such an id: it would shadow the built-in composition).
 */
export function isBuiltInRouteId(route: string): boolean {
  if (Object.hasOwn(ROUTE_ALIASES, route) || Object.hasOwn(TARGET_ALIASES, route)) return true;
  const parts = resolveRouteId(route);
  return parts !== null && (BUILT_IN_ENGINES as readonly string[]).includes(parts.target);
}

/** Whether the raw target endpoint names a connector module (checked again by endpoint()). */
function isPluginEndpoint(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Fields).connector !== undefined;
}

/**
 * With a connector module the route is the plug-in's own id, never a built-in one. Its engines:
 * the source URL's scheme and the plug-in route's id as the target (no built-in target setting,
 * such as fence_schema or create, applies to it).
 */
function pluginRouteOf(route: string, sourceUrl: string): RouteParts {
  if (isBuiltInRouteId(route) || !PLUGIN_ROUTE_ID.test(route))
    throw invalidInput(
      `route of a plug-in connector must be its own id (lower case, digits, . _ -; not a built-in route such as ${WORKLOAD_ROUTE_ALIASES.join(', ')} or SOURCE-to-${BUILT_IN_ENGINES.join('|')})`,
      { field: 'route' },
    );
  return { id: route, source: urlEngine(sourceUrl) ?? route, target: route };
}

/** Whether a built-in target engine can be written without a fence (`target.fence: none`: a plain write). */
function hasPlainWrite(engine: string): boolean {
  return builtInConnector(engine)?.target?.openPlain !== undefined;
}

/** The built-in target engines whose workload rules allow `setting`, for a refusal to list them. */
function enginesAllowing(setting: 'fenceSchema' | 'createColumnType'): string {
  return Object.entries(BUILT_IN_CONNECTORS)
    .filter(([, engine]) => engine.workload?.[setting] !== undefined && engine.workload[setting] !== false)
    .map(([name]) => name)
    .join(', ');
}

/** `target.fence: none` (capability none), on a route whose target connector has a plain write. */
function fenceless(record: Fields, route: RouteParts): { fence?: 'none' } {
  if (record.fence === undefined) return {};
  if (record.fence !== 'none')
    throw invalidInput("target.fence must be none (or absent for the route's certified fence)", {
      field: 'target.fence',
    });
  // A plug-in's target may have plain writes (openPlain); its route checks when it opens.
  if (!hasPlainWrite(route.target) && !isPluginEndpoint(record))
    throw invalidInput(`target.fence: none is not a setting of route ${route.id}`, { field: 'target.fence' });
  return { fence: 'none' };
}

/**
 * `target.confirm_complete: false` opts out of the fence read a run makes when it finds its entry
 * COMPLETE (for a target where that read is expensive): a commit the target lost is then not seen.
 */
function confirmComplete(record: Fields): { confirm_complete?: false } {
  const value = record.confirm_complete;
  if (value === undefined || value === true) return {};
  if (value === false) return { confirm_complete: false };
  throw invalidInput('target.confirm_complete must be true or false', { field: 'target.confirm_complete' });
}

/** A schema name a fence may live in: never a temporary or system schema (checked again by the connector). */
const FENCE_SCHEMA = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The target endpoint: where its fence lives (`fence_schema`) and, opt-in, the column types to
 * create a missing target table with (`create`, checked against data.columns and the route).
 */
function target(value: unknown, columns: readonly string[], route: RouteParts): TargetSpec {
  const endpointSpec = endpoint(value, 'target');
  const record = value as Fields;
  const create =
    record.create === undefined
      ? {}
      : { create: targetCreate(record.create, columns, route, enginesAllowing('createColumnType')) };
  const spec = { ...endpointSpec, ...fenceless(record, route), ...confirmComplete(record) };
  if (record.fence_schema === undefined) return { ...spec, ...create };
  if (spec.fence === 'none')
    throw invalidInput('target.fence_schema names where a fence lives, but target.fence is none', {
      field: 'target.fence_schema',
    });
  const schema = text(
    record,
    'fence_schema',
    'target.fence_schema',
    FENCE_SCHEMA,
    'a schema name (letters, digits, _)',
  );
  if (builtInConnector(route.target)?.workload?.fenceSchema !== true) {
    throw invalidInput(
      `target.fence_schema is not a setting of route ${route.id} (its fence lives beside the target; targets with a fence schema: ${enginesAllowing('fenceSchema')})`,
      { field: 'target.fence_schema' },
    );
  }
  const lower = schema.toLowerCase();
  if (lower.startsWith('pg_') || ['information_schema', 'sys', 'guest'].includes(lower)) {
    throw invalidInput(
      `target.fence_schema must not be a temporary or system schema (${schema}): the fence must outlive every connection`,
      { field: 'target.fence_schema' },
    );
  }
  return { ...spec, fence_schema: schema, ...create };
}

function data(value: unknown): Workload['data'] {
  const record = map(need(value, 'data'), 'data', ['columns', 'natural_key', 'partition']);
  const columns = names(record, 'columns', 'data.columns');
  const naturalKey = names(record, 'natural_key', 'data.natural_key');
  naturalKey.forEach((column, index) => {
    if (!columns.includes(column)) {
      throw invalidInput(`data.natural_key[${index}] "${column}" is not in data.columns`, {
        field: `data.natural_key[${index}]`,
      });
    }
  });
  const partition = map(present(record, 'partition', 'data.partition'), 'data.partition', [
    'column',
    'value',
    'allow_empty',
  ]);
  const allowEmpty = partition.allow_empty;
  if (allowEmpty !== undefined && typeof allowEmpty !== 'boolean') {
    throw invalidInput('data.partition.allow_empty must be true or false', {
      field: 'data.partition.allow_empty',
    });
  }
  const column = text(partition, 'column', 'data.partition.column', IDENTIFIER, 'a column name');
  if (!columns.includes(column)) {
    throw invalidInput(`data.partition.column "${column}" is not in data.columns`, {
      field: 'data.partition.column',
    });
  }
  return {
    columns,
    natural_key: naturalKey,
    partition: {
      column,
      value: text(partition, 'value', 'data.partition.value'),
      ...(allowEmpty === true ? { allow_empty: true } : {}),
    },
  };
}

function execution(value: unknown): Workload['execution'] {
  if (value === undefined || value === null) return { lease_ttl_ms: DEFAULT_LEASE_TTL_MS };
  const record = map(value, 'execution', ['lease_ttl_ms', 'state_dir']);
  const ttl = record.lease_ttl_ms ?? DEFAULT_LEASE_TTL_MS;
  const { min, max } = LEASE_TTL_RANGE_MS;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < min || ttl > max) {
    throw invalidInput(
      `execution.lease_ttl_ms must be an integer from ${min} to ${max} (milliseconds; ${max} is one day)`,
      { field: 'execution.lease_ttl_ms' },
    );
  }
  return {
    lease_ttl_ms: ttl,
    ...(record.state_dir === undefined
      ? {}
      : { state_dir: text(record, 'state_dir', 'execution.state_dir') }),
  };
}

/**
 * Validates what `dpone identity` needs: the `identity:` and `intent:` maps, and what the intent
 * digest also covers — the source and target tables and the `data:` block (IntentData). Other
 * sections (URLs, journal, execution) may be absent. Unknown top-level keys are still refused.
 */
export function identityFromValue(
  value: unknown,
): Pick<Workload, 'identity' | 'intent'> & { readonly data: IntentData } {
  const root = map(value, '', TOP_LEVEL);
  const identity = parseIdentity(present(root, 'identity', 'identity'));
  const intent = parseIntent(present(root, 'intent', 'intent'));
  if (!(LOAD_STRATEGIES as readonly string[]).includes(intent.normalized_load_strategy)) {
    throw invalidInput(`intent.normalized_load_strategy must be one of: ${LOAD_STRATEGIES.join(', ')}`, {
      field: 'intent.normalized_load_strategy',
    });
  }
  const table = (end: 'source' | 'target') => {
    const record = map(present(root, end, end), end, ENDPOINT_KEYS[end]);
    return text(record, 'table', `${end}.table`, TABLE, 'a table name, optionally schema.table');
  };
  const fields = data(root.data);
  return {
    identity,
    intent,
    data: intentDataOf({
      source: { url: '', table: table('source') },
      target: { url: '', table: table('target') },
      data: fields,
    }),
  };
}

/**
 * Validates a workload's plain value (as YAML or JSON parsed it) into a Workload. Throws
 * DPONE_INVALID_INPUT whose `field` is the key path at fault; the caller adds the file position.
 * `state_dir` is returned as written; the file reader resolves it.
 */
export function workloadFromValue(value: unknown, file: string): Workload {
  const root = map(value, '', TOP_LEVEL);
  const { identity, intent } = identityFromValue(root);
  const source = endpoint(root.source, 'source');
  const routeText = text(root, 'route', 'route');
  const plugin = isPluginEndpoint(root.target) || source.connector !== undefined;
  const route = plugin ? pluginRouteOf(routeText, source.url) : routeOf(routeText, source.url);
  const journal =
    root.journal === undefined
      ? undefined
      : noPassword(
          text(root, 'journal', 'journal'),
          'journal',
          'the DPONE_JOURNAL_PASSWORD environment variable',
        );
  const fields = data(root.data);
  const targetSpec = target(root.target, fields.columns, route);
  const workload: Workload = {
    file,
    identity,
    intent,
    route: route.id,
    source,
    target: targetSpec,
    data: fields,
    ...(journal ? { journal } : {}),
    execution: execution(root.execution),
  };
  // A plug-in's target URL is the plug-in's to read (its own scheme).
  if (!plugin) checkEndpointEngine(workload.target.url, route.target, 'target');
  // Each end's engine refuses what it would resolve somewhere unmeant (a plug-in target reads its own).
  for (const end of ['source', 'target'] as const)
    if (end === 'source' || !plugin) builtInConnector(route[end])?.workload?.checkEndpoint?.(workload, end);
  return workload;
}

/**
 * The route's full id and engines (`SOURCE-to-TARGET`, or an alias: an engine's name for `E-to-E`,
 * or a target alias, which takes its source engine from source.url). The source URL must name the
 * route's source engine. Whether this build has connectors for both engines is decided when the route
 * opens (ROUTE_NOT_CERTIFIED).
 */
function routeOf(route: string, sourceUrl: string): RouteParts {
  const parts = resolveRouteId(route, sourceUrl);
  if (parts === null) {
    throw invalidInput(
      `route must be SOURCE-to-TARGET (e.g. ${exampleRouteIds().join(', ')}) or one of: ${WORKLOAD_ROUTE_ALIASES.join(', ')} (or a plug-in route, with target.connector)`,
      { field: 'route' },
    );
  }
  checkEndpointEngine(sourceUrl, parts.source, 'source');
  return parts;
}

/** An endpoint's URL scheme must name its end's engine (a server's URL as the target of a route into another engine is a mistake). */
function checkEndpointEngine(url: string, engine: string, end: 'source' | 'target'): void {
  const named = urlEngine(url);
  if (named !== engine) {
    throw invalidInput(
      `${end}.url is ${named === null ? 'not a URL with a scheme' : `a ${named} URL`}, but the route's ${end} is ${engine}`,
      { field: `${end}.url` },
    );
  }
}
