import { invalidInput } from '../contracts/errors.ts';
import { parseIdentity, parseIntent } from '../contracts/identity.ts';
import type { EndpointSpec, TargetSpec, Workload } from '../contracts/workload.ts';
import { LOAD_STRATEGIES } from '../contracts/workload.ts';

/** Routes a workload may name; src/cli/route-connectors.ts says which of them can run here. */
export const WORKLOAD_ROUTES = ['sqlite', 'postgres', 'clickhouse', 'mssql'] as const;

export const DEFAULT_LEASE_TTL_MS = 30_000;

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

function endpoint(value: unknown, field: string, extra: readonly string[] = []): EndpointSpec {
  const record = map(need(value, field), field, ['url', 'table', 'password_env', ...extra]);
  const url = text(record, 'url', `${field}.url`);
  // A password written into the file would end up in logs and evidence: secrets come from the env.
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(url) || /[?&](password|pwd)=/i.test(url)) {
    throw invalidInput(`${field}.url must not carry a password; name an env var in ${field}.password_env`, {
      field: `${field}.url`,
    });
  }
  const table = text(record, 'table', `${field}.table`, TABLE, 'a table name, optionally schema.table');
  const passwordEnv =
    record.password_env === undefined
      ? undefined
      : text(record, 'password_env', `${field}.password_env`, ENV_NAME, 'an environment variable name');
  return { url, table, ...(passwordEnv ? { password_env: passwordEnv } : {}) };
}

/** A schema name a fence may live in: never a temporary or system schema (checked again by the connector). */
const FENCE_SCHEMA = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function target(value: unknown, route: string): TargetSpec {
  const spec = endpoint(value, 'target', ['fence_schema']);
  const record = value as Fields;
  if (route === 'sqlite' && /\./.test(spec.table) && !spec.table.startsWith('main.')) {
    throw invalidInput(
      'target.table must be in the main database of the target file (no temp. or attached schema)',
      {
        field: 'target.table',
      },
    );
  }
  if (record.fence_schema === undefined) return spec;
  const schema = text(
    record,
    'fence_schema',
    'target.fence_schema',
    FENCE_SCHEMA,
    'a schema name (letters, digits, _)',
  );
  if (route === 'sqlite' || route === 'clickhouse') {
    throw invalidInput(
      `target.fence_schema is not a setting of route ${route} (its fence lives beside the target)`,
      {
        field: 'target.fence_schema',
      },
    );
  }
  const lower = schema.toLowerCase();
  if (lower.startsWith('pg_') || ['information_schema', 'sys', 'guest'].includes(lower)) {
    throw invalidInput(
      `target.fence_schema must not be a temporary or system schema (${schema}): the fence must outlive every connection`,
      { field: 'target.fence_schema' },
    );
  }
  return { ...spec, fence_schema: schema };
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
  ]);
  const column = text(partition, 'column', 'data.partition.column', IDENTIFIER, 'a column name');
  if (!columns.includes(column)) {
    throw invalidInput(`data.partition.column "${column}" is not in data.columns`, {
      field: 'data.partition.column',
    });
  }
  return {
    columns,
    natural_key: naturalKey,
    partition: { column, value: text(partition, 'value', 'data.partition.value') },
  };
}

function execution(value: unknown): Workload['execution'] {
  if (value === undefined || value === null) return { lease_ttl_ms: DEFAULT_LEASE_TTL_MS };
  const record = map(value, 'execution', ['lease_ttl_ms', 'state_dir']);
  const ttl = record.lease_ttl_ms ?? DEFAULT_LEASE_TTL_MS;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1) {
    throw invalidInput('execution.lease_ttl_ms must be a positive integer (milliseconds)', {
      field: 'execution.lease_ttl_ms',
    });
  }
  return {
    lease_ttl_ms: ttl,
    ...(record.state_dir === undefined
      ? {}
      : { state_dir: text(record, 'state_dir', 'execution.state_dir') }),
  };
}

/**
 * Validates a workload's plain value (as YAML or JSON parsed it) into a Workload. Throws
 * DPONE_INVALID_INPUT whose `field` is the key path at fault; the caller adds the file position.
 * `state_dir` is returned as written; the file reader resolves it.
 */
export function workloadFromValue(value: unknown, file: string): Workload {
  const root = map(value, '', TOP_LEVEL);
  const identity = parseIdentity(present(root, 'identity', 'identity'));
  const intent = parseIntent(present(root, 'intent', 'intent'));
  if (!(LOAD_STRATEGIES as readonly string[]).includes(intent.normalized_load_strategy)) {
    throw invalidInput(`intent.normalized_load_strategy must be one of: ${LOAD_STRATEGIES.join(', ')}`, {
      field: 'intent.normalized_load_strategy',
    });
  }
  const route = text(root, 'route', 'route');
  if (!(WORKLOAD_ROUTES as readonly string[]).includes(route)) {
    throw invalidInput(`route must be one of: ${WORKLOAD_ROUTES.join(', ')}`, { field: 'route' });
  }
  const journal = root.journal === undefined ? undefined : text(root, 'journal', 'journal');
  return {
    file,
    identity,
    intent,
    route,
    source: endpoint(root.source, 'source'),
    target: target(root.target, route),
    data: data(root.data),
    ...(journal ? { journal } : {}),
    execution: execution(root.execution),
  };
}
