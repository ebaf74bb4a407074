import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deriveIntentDigest, deriveOperationId } from '../contracts/identity.ts';
import { intentDataOf } from '../contracts/workload.ts';
import { parseWorkload } from './workload-yaml.ts';
import {
  EXAMPLE,
  EXAMPLE_ROUTE_LINE,
  EXAMPLE_TEXT,
  lineOf,
  workloadRefusal,
} from './workload-yaml.test-support.ts';

/*
 * The workload loader on the shipped example (an embedded route). What one engine's workload rules
 * refuse (a fence schema, a temporary table) is tested in its folder (connectors/<engine>/).
 */
const FILE = '/work/w.yaml';
/** The engine the example's route names (an alias: that engine into itself), and its source's URL line. */
const EXAMPLE_ENGINE = EXAMPLE_ROUTE_LINE.slice('route: '.length);
const SOURCE_URL_LINE = EXAMPLE_TEXT.split('\n').find((line) => line.startsWith('  url:'))!;
const vectors = JSON.parse(
  readFileSync(new URL('../contracts/identity-vectors.json', import.meta.url), 'utf8'),
) as { vectors: { name: string; operation_id: string; intent_digest: string }[] };
const schema = JSON.parse(
  readFileSync(new URL('../../schemas/workload.v1.json', import.meta.url), 'utf8'),
) as Schema;

const refusal = (text: string) => workloadRefusal(text, FILE);

describe('workload file', () => {
  it('loads the example with the ids of the published basic vector', () => {
    const workload = parseWorkload(EXAMPLE_TEXT, EXAMPLE);
    const basic = vectors.vectors.find((vector) => vector.name === 'basic')!;
    expect(deriveOperationId(workload.identity)).toBe(basic.operation_id);
    expect(deriveIntentDigest(workload.intent, intentDataOf(workload))).toBe(basic.intent_digest);
    expect(workload.route).toBe(`${EXAMPLE_ENGINE}-to-${EXAMPLE_ENGINE}`);
    expect(workload.execution).toEqual({
      lease_ttl_ms: 30000,
      state_dir: join(dirname(EXAMPLE), 'data/state'),
    });
  });

  it('defaults lease_ttl_ms to 30000 and state_dir beside the file', () => {
    const text = EXAMPLE_TEXT.replace(/\nexecution:[\s\S]*$/, '\n');
    expect(parseWorkload(text, FILE).execution).toEqual({
      lease_ttl_ms: 30000,
      state_dir: '/work/dpone-state',
    });
  });

  it.each([
    [
      'a forbidden identity field',
      '  workload_id: orders_to_events',
      '  try_number: 2',
      'identity.try_number',
      /forbidden/,
    ],
    [
      'a forbidden pod name',
      '  workload_id: orders_to_events',
      '  pod_name: worker-7',
      'identity.pod_name',
      /forbidden/,
    ],
    ['an unknown top-level key', EXAMPLE_ROUTE_LINE, 'colour: blue', 'colour', /not a workload field/],
    ['an unknown nested key', '  table: orders', '  schema: x', 'source.schema', /not a workload field/],
  ])('refuses %s at the line of the key', (_label, after, inserted, field, message) => {
    const text = EXAMPLE_TEXT.replace(`${after}\n`, `${after}\n${inserted}\n`);
    const error = refusal(text);
    expect(error.fields.field).toBe(field);
    expect(error.message).toMatch(message);
    const column = inserted.length - inserted.trimStart().length + 1;
    expect(error.fields.location).toBe(`${FILE}:${lineOf(text, inserted)}:${column}`);
  });

  it('points a missing field at the map it is missing from', () => {
    const text = EXAMPLE_TEXT.replace("  schema_fingerprint: 'schema:v1'\n", '');
    const error = refusal(text);
    expect(error.fields.field).toBe('intent.schema_fingerprint');
    expect(error.fields.location).toBe(`${FILE}:${lineOf(text, 'intent:')}:1`);
  });

  it.each([
    ['a wrong type', "  release_id: '2026.07.1'", '  release_id: 2026.07', 'identity.release_id', /string/],
    ['an empty value', '  dag_id: orders_daily', "  dag_id: ''", 'identity.dag_id', /empty/],
    [
      'an interval without zone',
      "    start: '2026-07-18T00:00:00Z'",
      "    start: '2026-07-18T00:00:00'",
      'identity.canonical_interval.start',
      /zone/,
    ],
    [
      'start after end',
      "    start: '2026-07-18T00:00:00Z'",
      "    start: '2026-07-20T00:00:00Z'",
      'identity.canonical_interval',
      /start < end/,
    ],
    [
      'an unknown load strategy',
      '  normalized_load_strategy: append',
      '  normalized_load_strategy: upsert',
      'intent.normalized_load_strategy',
      /append, replace-partition/,
    ],
    [
      'a natural key outside the columns',
      '  natural_key: [id]',
      '  natural_key: [id, nope]',
      'data.natural_key[1]',
      /not in data.columns/,
    ],
    [
      'a partition column outside the columns',
      '    column: day',
      '    column: month',
      'data.partition.column',
      /not in data.columns/,
    ],
    [
      'a password in a URL',
      SOURCE_URL_LINE,
      "  url: 'server://etl:hunter2@127.0.0.1/db'",
      'source.url',
      /password_env/,
    ],
    ['an unknown route', EXAMPLE_ROUTE_LINE, 'route: oracle', 'route', /SOURCE-to-TARGET.*or one of/],
    [
      'a bad lease ttl',
      '  lease_ttl_ms: 30000',
      '  lease_ttl_ms: -5',
      'execution.lease_ttl_ms',
      /an integer from 1 to 86400000/,
    ],
    [
      'a lease ttl whose expiry the journal could not store',
      '  lease_ttl_ms: 30000',
      '  lease_ttl_ms: 1e16',
      'execution.lease_ttl_ms',
      /an integer from 1 to 86400000 \(milliseconds; 86400000 is one day\)/,
    ],
  ])('refuses %s naming the field and its line', (_label, line, replacement, field, message) => {
    expect(EXAMPLE_TEXT).toContain(line);
    const text = EXAMPLE_TEXT.replace(line, replacement);
    const error = refusal(text);
    expect(error.fields.field).toBe(field);
    expect(error.message).toMatch(message);
    const where = field.endsWith('canonical_interval')
      ? '  canonical_interval:'
      : replacement.replace(/:.*$/s, ':');
    expect(error.fields.location).toMatch(new RegExp(`^${FILE}:${lineOf(text, where)}:\\d+$`));
    expect(error.message).not.toContain('hunter2');
  });

  it.each([
    ['a bad indent', 'identity:\n  dag_id: a\n dag_run: b\n', 3],
    ['a duplicate key', 'route: a\nroute: b\n', 2],
    ['an unclosed flow list', 'data:\n  columns: [id, day\n', 3],
  ])('refuses malformed YAML (%s) with its position and without quoting the source', (_label, text, line) => {
    const error = refusal(text);
    expect(error.message).toMatch(/^malformed YAML/);
    expect(error.fields.location).toMatch(new RegExp(`^${FILE}:${line}:\\d+$`));
  });

  it('refuses an empty file and a list at the root', () => {
    expect(refusal('').fields.location).toBe(`${FILE}:1:1`);
    expect(refusal('- a\n').message).toMatch(/must be a map/);
  });
});

interface Schema {
  type?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  /** false: no other keys; a schema: a map whose values all match it. */
  additionalProperties?: boolean | Schema;
  minProperties?: number;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  minItems?: number;
  minimum?: number;
  uniqueItems?: boolean;
  items?: Schema;
  $ref?: string;
  $defs?: Record<string, Schema>;
}

/** The subset of JSON Schema the workload schema uses; returns the paths that fail. */
function schemaErrors(node: Schema, value: unknown, path = ''): string[] {
  if (node.$ref) return schemaErrors(schema.$defs![node.$ref.replace('#/$defs/', '')]!, value, path);
  const errors: string[] = [];
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (node.type === 'object' && !isObject) return [`${path}: not an object`];
  if (node.type === 'array' && !Array.isArray(value)) return [`${path}: not an array`];
  if (node.type === 'string' && typeof value !== 'string') return [`${path}: not a string`];
  if (node.type === 'integer' && !Number.isInteger(value)) return [`${path}: not an integer`];
  if (node.enum && !node.enum.includes(value)) errors.push(`${path}: not in enum`);
  if (typeof value === 'string') {
    if (node.pattern && !new RegExp(node.pattern, 'u').test(value)) errors.push(`${path}: pattern`);
    if (node.minLength !== undefined && value.length < node.minLength) errors.push(`${path}: minLength`);
  }
  if (typeof value === 'number' && node.minimum !== undefined && value < node.minimum)
    errors.push(`${path}: minimum`);
  if (Array.isArray(value)) {
    if (node.minItems !== undefined && value.length < node.minItems) errors.push(`${path}: minItems`);
    if (node.uniqueItems && new Set(value).size !== value.length) errors.push(`${path}: uniqueItems`);
    value.forEach((item, index) => errors.push(...schemaErrors(node.items ?? {}, item, `${path}[${index}]`)));
  }
  if (isObject) {
    const record = value as Record<string, unknown>;
    for (const key of node.required ?? []) if (!(key in record)) errors.push(`${path}.${key}: required`);
    for (const [key, item] of Object.entries(record)) {
      const child = node.properties?.[key];
      if (child) errors.push(...schemaErrors(child, item, `${path}.${key}`));
      else if (node.additionalProperties === false) errors.push(`${path}.${key}: additional`);
      else if (typeof node.additionalProperties === 'object')
        errors.push(...schemaErrors(node.additionalProperties, item, `${path}.${key}`));
    }
    if (node.minProperties !== undefined && Object.keys(record).length < node.minProperties)
      errors.push(`${path}: minProperties`);
  }
  return errors;
}

/** Every (key path, required keys, allowed keys) of the schema's object nodes. */
function objectNodes(
  node: Schema,
  path: string[] = [],
): { path: string[]; required: string[]; allowed: string[] }[] {
  if (node.$ref) return objectNodes(schema.$defs![node.$ref.replace('#/$defs/', '')]!, path);
  // A map (free keys, e.g. target.create.columns) is not a fixed-key object.
  if (node.type !== 'object' || typeof node.additionalProperties === 'object') return [];
  return [
    { path, required: node.required ?? [], allowed: Object.keys(node.properties ?? {}) },
    ...Object.entries(node.properties ?? {}).flatMap(([key, child]) => objectNodes(child, [...path, key])),
  ];
}

describe('workload JSON Schema', () => {
  const example = parse(EXAMPLE_TEXT) as Record<string, unknown>;

  it('accepts the example workload', () => {
    expect(schemaErrors(schema, example)).toEqual([]);
  });

  it('rejects what the loader rejects: an unknown key and a bad load strategy', () => {
    expect(schemaErrors(schema, { ...example, colour: 'blue' })).toEqual(['.colour: additional']);
    const intent = { ...(example.intent as object), normalized_load_strategy: 'upsert' };
    expect(schemaErrors(schema, { ...example, intent })).toEqual([
      '.intent.normalized_load_strategy: not in enum',
    ]);
  });

  const nodes = objectNodes(schema);
  const cases = nodes.flatMap((node) =>
    node.allowed.map(
      (key) => [[...node.path, key].join('.'), node, key, node.required.includes(key)] as const,
    ),
  );

  it('covers every object of the workload', () => {
    expect(nodes.map((node) => node.path.join('.')).sort()).toEqual(
      [
        '',
        'data',
        'data.partition',
        'execution',
        'identity',
        'identity.canonical_interval',
        'intent',
        'source',
        'target',
        'target.create',
      ].sort(),
    );
  });

  it.each(cases)('agrees with the loader on whether %s is required', (field, node, key, required) => {
    const copy = structuredClone(example);
    let parent = copy as Record<string, unknown>;
    for (const segment of node.path) {
      parent[segment] ??= {};
      parent = parent[segment] as Record<string, unknown>;
    }
    delete parent[key];
    const text = JSON.stringify(copy);
    if (required) {
      expect(schemaErrors(schema, copy)).toContain(`.${field}: required`);
      const error = refusal(text);
      expect(error.fields.field).toBe(field);
      expect(error.message).toMatch(/missing/);
    } else {
      expect(schemaErrors(schema, copy)).toEqual([]);
      expect(() => parseWorkload(text, FILE)).not.toThrow();
    }
  });

  it('allows exactly the keys the loader allows, object by object', () => {
    for (const node of nodes) {
      const copy = structuredClone(example);
      let parent = copy as Record<string, unknown>;
      for (const segment of node.path) parent = (parent[segment] ??= {}) as Record<string, unknown>;
      parent.zz_extra = 'x';
      const field = [...node.path, 'zz_extra'].join('.');
      expect(schemaErrors(schema, copy)).toContain(`.${field}: additional`);
      expect(refusal(JSON.stringify(copy)).fields.field).toBe(field);
    }
  });
});
