import type { Node, Pair } from 'yaml';
import { isMap, isScalar, isSeq } from 'yaml';
import type { ObjectSchema, Schema } from './schema-type.ts';

/** One validation problem: where (source offset) and which key path. */
export interface SchemaProblem {
  readonly offset: number;
  readonly path: string;
  readonly message: string;
}

/**
 * Validates a YAML node against the schema subset of schema-type.ts, reporting every problem with
 * the node's source offset and key path (e.g. `faults[1].workers`). Unknown keys are problems.
 */
export function validateNode(
  node: Node | null | undefined,
  schema: Schema,
  path: string,
  out: SchemaProblem[],
  parentOffset = 0,
): void {
  const offset = node?.range?.[0] ?? parentOffset;
  const fail = (message: string): void => {
    out.push({ offset, path: path || '(root)', message });
  };
  if ('const' in schema) {
    if (!isScalar(node) || node.value !== schema.const) fail(`must be "${schema.const}"`);
    return;
  }
  if ('enum' in schema) {
    if (!isScalar(node) || !schema.enum.includes(node.value as string | number))
      fail(`must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
    return;
  }
  if ('oneOf' in schema) return validateTagged(node, schema.oneOf, path, out, offset);
  switch (schema.type) {
    case 'string': {
      if (!isScalar(node) || typeof node.value !== 'string') return fail('must be a string');
      if (schema.minLength !== undefined && node.value.length < schema.minLength) return fail('is too short');
      if (schema.pattern && !new RegExp(schema.pattern).test(node.value))
        fail(`must match ${schema.pattern}`);
      return;
    }
    case 'integer': {
      if (!isScalar(node) || typeof node.value !== 'number' || !Number.isInteger(node.value))
        return fail('must be an integer');
      if (schema.minimum !== undefined && node.value < schema.minimum) fail(`must be >= ${schema.minimum}`);
      if (schema.maximum !== undefined && node.value > schema.maximum) fail(`must be <= ${schema.maximum}`);
      return;
    }
    case 'boolean':
      if (!isScalar(node) || typeof node.value !== 'boolean') fail('must be true or false');
      return;
    case 'array': {
      if (!isSeq(node)) return fail('must be a list');
      if (schema.minItems !== undefined && node.items.length < schema.minItems)
        fail(`needs at least ${schema.minItems} item(s)`);
      if (schema.maxItems !== undefined && node.items.length > schema.maxItems)
        fail(`takes at most ${schema.maxItems} item(s)`);
      node.items.forEach((item, index) =>
        validateNode(item as Node, schema.items, `${path}[${index}]`, out, offset),
      );
      return;
    }
    case 'object':
      return validateObject(node, schema, path, out, offset);
  }
}

function validateObject(
  node: Node | null | undefined,
  schema: ObjectSchema,
  path: string,
  out: SchemaProblem[],
  offset: number,
): void {
  if (!isMap(node)) {
    out.push({ offset, path: path || '(root)', message: 'must be a map' });
    return;
  }
  const seen = new Set<string>();
  for (const pair of node.items as Pair<Node, Node>[]) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const keyOffset = pair.key?.range?.[0] ?? offset;
    const keyPath = path ? `${path}.${key}` : key;
    const property = schema.properties[key];
    if (!property) {
      const known = Object.keys(schema.properties).join(', ');
      out.push({ offset: keyOffset, path: keyPath, message: `unknown key (allowed: ${known})` });
      continue;
    }
    if (seen.has(key)) out.push({ offset: keyOffset, path: keyPath, message: 'duplicate key' });
    seen.add(key);
    validateNode(pair.value, property, keyPath, out, keyOffset);
  }
  for (const key of schema.required ?? [])
    if (!seen.has(key)) out.push({ offset, path: path ? `${path}.${key}` : key, message: 'is required' });
  for (const [key, needs] of Object.entries(schema.dependentRequired ?? {})) {
    if (!seen.has(key)) continue;
    for (const need of needs.filter((name) => !seen.has(name)))
      out.push({ offset, path: path ? `${path}.${need}` : need, message: `is required with ${key}` });
  }
}

/** A tagged union picks its branch by `kind`, so the error names the branch's own keys. */
function validateTagged(
  node: Node | null | undefined,
  branches: readonly ObjectSchema[],
  path: string,
  out: SchemaProblem[],
  offset: number,
): void {
  const kinds = branches.map((branch) => (branch.properties.kind as { const: string }).const);
  const kind = isMap(node) ? node.get('kind') : undefined;
  const branch = branches.find(
    (candidate) => (candidate.properties.kind as { const: string }).const === kind,
  );
  if (!branch) {
    out.push({
      offset,
      path: `${path}.kind`,
      message: `must be one of ${kinds.map((k) => JSON.stringify(k)).join(', ')}`,
    });
    return;
  }
  validateObject(node, branch, path, out, offset);
}
