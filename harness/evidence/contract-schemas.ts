import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

/** The folder every public contract's JSON Schema is published in (package export `dpone-cert/schemas/*`). */
export const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

/** The published contracts, by file stem: `evidence` is schemas/evidence.v1.json, and so on. */
export const CONTRACTS = [
  'evidence',
  'certification',
  'run',
  'error',
  'identity',
  'recovery-inspect',
  'recovery-plan',
  'recovery-apply',
  'recovery-cleanup',
  'doctor',
  'gate',
  'verify',
  'workload',
  'scenario',
  'certification-bundle',
  'trust-policy',
  'explain',
  'deployment-policy',
  'shadow-report',
] as const;
export type ContractName = (typeof CONTRACTS)[number];

/** A contract's published version, when not v1 (certification v1 bound no code and is refused). */
const VERSIONS: Partial<Record<ContractName, string>> = { certification: 'v2', 'certification-bundle': 'v2' };

/** The schema file of a contract: `<name>.<version>.json`. */
export function contractFile(name: ContractName): string {
  return `${name}.${VERSIONS[name] ?? 'v1'}.json`;
}

const BASE = 'https://dpone.example/schemas/';

let compiled: Map<string, ValidateFunction> | null = null;

/** Compiles every schema once, strictly: a schema with an unknown keyword or a bad $ref fails here. */
function validators(): Map<string, ValidateFunction> {
  if (compiled) return compiled;
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  for (const file of readdirSync(SCHEMAS_DIR).filter((name) => name.endsWith('.json')))
    ajv.addSchema(JSON.parse(readFileSync(`${SCHEMAS_DIR}${file}`, 'utf8')) as object);
  compiled = new Map(CONTRACTS.map((name) => [name, ajv.getSchema(`${BASE}${contractFile(name)}`)!]));
  for (const [name, validate] of compiled)
    if (!validate) throw new TypeError(`schemas/${name} is missing or has another $id`);
  return compiled;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
      : error.keyword === 'unevaluatedProperties'
        ? ` (${String((error.params as { unevaluatedProperty?: string }).unevaluatedProperty)})`
        : error.keyword === 'enum' || error.keyword === 'const'
          ? ` (${JSON.stringify((error.params as { allowedValues?: unknown; allowedValue?: unknown }).allowedValues ?? (error.params as { allowedValue?: unknown }).allowedValue)})`
          : '';
  return `${where} ${error.message ?? error.keyword}${extra}`;
}

/**
 * What is wrong with `value` as the contract `name` (schemas/<name>.v1.json): one line per problem
 * (JSON pointer and message; never the value itself), empty when it conforms.
 */
export function contractProblems(name: ContractName, value: unknown): string[] {
  const validate = validators().get(name)!;
  if (validate(value)) return [];
  return [...new Set((validate.errors ?? []).map(describe))];
}
