import { createHash } from 'node:crypto';
import { invalidInput } from './errors.ts';
import { normalizeTimestamp } from './identity-timestamp.ts';

export { normalizeTimestamp };

/** The spec's operation identity fields, in the spec's order. */
export const IDENTITY_FIELDS = [
  'release_id',
  'deployment_id',
  'dag_id',
  'dag_run_logical_identity',
  'workload_id',
  'mapped_partition_identity',
  'canonical_interval',
  'canonical_target_identity',
] as const;

/** The spec's intent digest fields, in the spec's order. */
export const INTENT_FIELDS = [
  'pack_fingerprint',
  'normalized_load_strategy',
  'source_snapshot_or_partition_identity',
  'target_contract',
  'schema_fingerprint',
] as const;

/**
 * Names that must never feed an identity: they change between retries of one logical workload
 * (spec: "must not contain Airflow try number, runtime pod name, correlation ID, current time, or a
 * random value"). Compared after lower-casing and removing '_' and '-'.
 */
export const FORBIDDEN_IDENTITY_FIELDS = [
  'try_number',
  'attempt',
  'pod_name',
  'hostname',
  'correlation_id',
  'run_id',
  'current_time',
  'now',
  'timestamp',
  'execution_time',
  'started_at',
  'random',
  'uuid',
  'nonce',
] as const;

export interface CanonicalInterval {
  /** Inclusive start, ISO-8601; normalised to UTC with millisecond precision. */
  readonly start: string;
  /** Exclusive end, ISO-8601; normalised to UTC with millisecond precision. */
  readonly end: string;
}

export interface OperationIdentityInput {
  readonly release_id: string;
  readonly deployment_id: string;
  readonly dag_id: string;
  readonly dag_run_logical_identity: string;
  readonly workload_id: string;
  readonly mapped_partition_identity: string;
  readonly canonical_interval: CanonicalInterval;
  readonly canonical_target_identity: string;
}

export interface IntentInput {
  readonly pack_fingerprint: string;
  readonly normalized_load_strategy: string;
  readonly source_snapshot_or_partition_identity: string;
  readonly target_contract: string;
  readonly schema_fingerprint: string;
}

/**
 * What the run reads and writes, digested into the intent with the spec's five intent fields: a
 * workload that changes any of it under the same operation id is an intent conflict, never
 * "already complete". The load strategy is the intent's `normalized_load_strategy`.
 */
export interface IntentData {
  readonly source_table: string;
  readonly target_table: string;
  /** In the workload's order: the order is part of what the run writes. */
  readonly columns: readonly string[];
  readonly natural_key: readonly string[];
  readonly partition_column: string;
  readonly partition_value: string;
}

/** The data fields as the encoding names them (beside the five intent fields). */
export const INTENT_DATA_FIELDS = [
  'data.source_table',
  'data.target_table',
  'data.columns',
  'data.natural_key',
  'data.partition.column',
  'data.partition.value',
] as const;

/** `sha256:` followed by 64 lower-case hex digits. */
export type Sha256Id = `sha256:${string}`;

export const SHA256_ID_PATTERN = /^sha256:[0-9a-f]{64}$/;

/** Domain tags keep an operation id and an intent digest over equal text from ever colliding. */
const OPERATION_DOMAIN = 'dpone.operation_id.v1';
const INTENT_DOMAIN = 'dpone.intent_digest.v2';
/** One intent field on its own, for naming which field of a conflicting intent differs. */
const INTENT_FIELD_DOMAIN = 'dpone.intent_field.v1';

export function isSha256Id(value: unknown): value is Sha256Id {
  return typeof value === 'string' && SHA256_ID_PATTERN.test(value);
}

export function assertSha256Id(value: unknown, field: string): Sha256Id {
  if (!isSha256Id(value)) {
    throw invalidInput(`${field} must be "sha256:" followed by 64 lower-case hex digits`, { field });
  }
  return value;
}

/**
 * Canonical encoding (docs/identity.md has the byte-level rules and src/contracts/identity-vectors.json
 * the vectors): `domain` + "\n" + a JSON object with keys sorted by UTF-16 code units, string values
 * only, no whitespace, strings escaped as JSON.stringify does (RFC 8785 for this subset), hashed as
 * UTF-8. JSON's quoting makes field boundaries unambiguous, unlike plain concatenation. Strings are
 * hashed exactly as given: no trimming, no case folding, no Unicode normalisation.
 */
export function canonicalEncoding(domain: string, fields: Readonly<Record<string, string>>): string {
  const keys = Object.keys(fields).sort();
  const body = keys.map((key) => `${JSON.stringify(key)}:${JSON.stringify(fields[key])}`).join(',');
  return `${domain}\n{${body}}`;
}

function sha256Id(text: string): Sha256Id {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

function normalizedKey(name: string): string {
  return name.toLowerCase().replace(/[-_]/g, '');
}

const FORBIDDEN = new Set(FORBIDDEN_IDENTITY_FIELDS.map(normalizedKey));

function asRecord(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidInput(`${where} must be a map`, { field: where });
  }
  return value as Record<string, unknown>;
}

function checkKeys(record: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(record)) {
    if (FORBIDDEN.has(normalizedKey(key))) {
      throw invalidInput(
        `${where}.${key} is forbidden in an identity: it changes between retries of the same workload`,
        { field: `${where}.${key}` },
      );
    }
    if (!allowed.includes(key)) {
      throw invalidInput(`${where}.${key} is not a field of the ${where}`, { field: `${where}.${key}` });
    }
  }
}

function requireString(record: Record<string, unknown>, key: string, where: string): string {
  const value = record[key];
  if (value === undefined || value === null) {
    throw invalidInput(`${where}.${key} is missing`, { field: `${where}.${key}` });
  }
  if (typeof value !== 'string') {
    throw invalidInput(`${where}.${key} must be a string, got ${typeof value}`, { field: `${where}.${key}` });
  }
  if (value.trim() === '') {
    throw invalidInput(`${where}.${key} must not be empty`, { field: `${where}.${key}` });
  }
  // A lone surrogate has no UTF-8 encoding, so other implementations could not hash it.
  if (!value.isWellFormed()) {
    throw invalidInput(`${where}.${key} must be well-formed Unicode`, { field: `${where}.${key}` });
  }
  return value;
}

/** Normalises a half-open interval [start, end): UTC, millisecond precision, start < end. */
export function normalizeInterval(value: unknown, where = 'identity.canonical_interval'): CanonicalInterval {
  const record = asRecord(value, where);
  checkKeys(record, ['start', 'end'], where);
  const start = normalizeTimestamp(requireString(record, 'start', where), `${where}.start`);
  const end = normalizeTimestamp(requireString(record, 'end', where), `${where}.end`);
  if (Date.parse(start) >= Date.parse(end)) {
    throw invalidInput(`${where} must have start < end (half-open [start, end))`, { field: where });
  }
  return { start, end };
}

/** Validates and normalises operation identity input; throws INVALID_INPUT naming the field. */
export function parseIdentity(value: unknown, where = 'identity'): OperationIdentityInput {
  const record = asRecord(value, where);
  checkKeys(record, IDENTITY_FIELDS, where);
  const strings = Object.fromEntries(
    IDENTITY_FIELDS.filter((key) => key !== 'canonical_interval').map((key) => [
      key,
      requireString(record, key, where),
    ]),
  ) as Omit<OperationIdentityInput, 'canonical_interval'>;
  if (record.canonical_interval === undefined) {
    throw invalidInput(`${where}.canonical_interval is missing`, { field: `${where}.canonical_interval` });
  }
  return {
    ...strings,
    canonical_interval: normalizeInterval(record.canonical_interval, `${where}.canonical_interval`),
  };
}

/** Validates intent input; throws INVALID_INPUT naming the field. */
export function parseIntent(value: unknown, where = 'intent'): IntentInput {
  const record = asRecord(value, where);
  checkKeys(record, INTENT_FIELDS, where);
  return Object.fromEntries(
    INTENT_FIELDS.map((key) => [key, requireString(record, key, where)]),
  ) as unknown as IntentInput;
}

export function deriveOperationId(input: OperationIdentityInput): Sha256Id {
  const identity = parseIdentity(input);
  const { canonical_interval: interval, ...rest } = identity;
  return sha256Id(
    canonicalEncoding(OPERATION_DOMAIN, {
      ...rest,
      'canonical_interval.start': interval.start,
      'canonical_interval.end': interval.end,
    }),
  );
}

/** Validates the data block of an intent; throws INVALID_INPUT naming the field. */
export function parseIntentData(value: unknown, where = 'data'): IntentData {
  const record = asRecord(value, where);
  checkKeys(
    record,
    ['source_table', 'target_table', 'columns', 'natural_key', 'partition_column', 'partition_value'],
    where,
  );
  const list = (key: string): string[] => {
    const items = record[key];
    if (!Array.isArray(items) || items.length === 0) {
      throw invalidInput(`${where}.${key} must be a non-empty list of strings`, { field: `${where}.${key}` });
    }
    return items.map((_, index) =>
      requireString(items as unknown as Record<string, unknown>, String(index), `${where}.${key}`),
    );
  };
  return {
    source_table: requireString(record, 'source_table', where),
    target_table: requireString(record, 'target_table', where),
    columns: list('columns'),
    natural_key: list('natural_key'),
    partition_column: requireString(record, 'partition_column', where),
    partition_value: requireString(record, 'partition_value', where),
  };
}

/**
 * Every field the intent digest covers, as the strings the encoding hashes: the five intent
 * fields and the data fields, lists as compact JSON arrays (`["id","day"]`).
 */
export function intentFields(intent: IntentInput, data: IntentData): Record<string, string> {
  const parsed = parseIntentData(data);
  return {
    ...parseIntent(intent),
    'data.source_table': parsed.source_table,
    'data.target_table': parsed.target_table,
    'data.columns': JSON.stringify(parsed.columns),
    'data.natural_key': JSON.stringify(parsed.natural_key),
    'data.partition.column': parsed.partition_column,
    'data.partition.value': parsed.partition_value,
  };
}

/** The intent digest: the spec's intent fields and what the run reads and writes (IntentData). */
export function deriveIntentDigest(input: IntentInput, data: IntentData): Sha256Id {
  return sha256Id(canonicalEncoding(INTENT_DOMAIN, intentFields(input, data)));
}

/**
 * A digest of each intent field on its own, stored with the intent in the journal (values never
 * are: a partition value may be data). A conflicting intent is named by the fields whose digests differ.
 */
export function intentFieldDigests(input: IntentInput, data: IntentData): Record<string, Sha256Id> {
  return Object.fromEntries(
    Object.entries(intentFields(input, data)).map(([field, value]) => [
      field,
      sha256Id(canonicalEncoding(INTENT_FIELD_DOMAIN, { [field]: value })),
    ]),
  );
}

/** The fields whose digests differ between two intents (sorted); fields only one side has count too. */
export function differingIntentFields(
  recorded: Readonly<Record<string, string>>,
  current: Readonly<Record<string, string>>,
): string[] {
  const names = new Set([...Object.keys(recorded), ...Object.keys(current)]);
  return [...names].filter((name) => recorded[name] !== current[name]).sort();
}
