import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from './errors.ts';
import type { IntentData, IntentInput, OperationIdentityInput } from './identity.ts';
import {
  canonicalEncoding,
  differingIntentFields,
  intentFieldDigests,
  deriveIntentDigest,
  deriveOperationId,
  normalizeInterval,
  parseIdentity,
  parseIntent,
} from './identity.ts';

interface Vector {
  readonly name: string;
  readonly identity: OperationIdentityInput;
  readonly intent: IntentInput;
  readonly data: IntentData;
  readonly operation_id: string;
  readonly intent_digest: string;
}

interface InvalidVector {
  readonly name: string;
  readonly identity?: unknown;
  readonly intent?: unknown;
  readonly data?: unknown;
  readonly field: string;
}

const published = JSON.parse(readFileSync(new URL('./identity-vectors.json', import.meta.url), 'utf8')) as {
  vectors: Vector[];
  invalid: InvalidVector[];
};
const byName = (name: string): Vector => published.vectors.find((vector) => vector.name === name)!;

function refusal(run: () => unknown): DponeError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(DponeError);
    expect((error as DponeError).code).toBe(ERROR_CODES.INVALID_INPUT);
    return error as DponeError;
  }
  throw new Error('expected the input to be refused');
}

describe('published identity vectors', () => {
  it('has at least ten valid vectors', () => {
    expect(published.vectors.length).toBeGreaterThanOrEqual(10);
  });

  it.each(published.vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    expect(deriveOperationId(vector.identity)).toBe(vector.operation_id);
    expect(deriveIntentDigest(vector.intent, vector.data)).toBe(vector.intent_digest);
  });

  it.each(published.invalid.map((vector) => [vector.name, vector] as const))(
    'refuses %s naming the field',
    (_name, vector) => {
      const error = refusal(() =>
        vector.identity !== undefined
          ? deriveOperationId(vector.identity as OperationIdentityInput)
          : deriveIntentDigest(vector.intent as IntentInput, vector.data as IntentData),
      );
      expect(error.fields.field).toBe(vector.field);
      expect(error.message).toContain(vector.field);
    },
  );
});

describe('identity properties the vectors pin down', () => {
  it('the data the run reads and writes is part of the intent: each data vector differs from basic', () => {
    const basic = byName('basic').intent_digest;
    for (const name of [
      'data-partition-changed',
      'data-columns-reordered',
      'data-list-boundary',
      'data-tables-swapped',
    ]) {
      expect(byName(name).operation_id).toBe(byName('basic').operation_id);
      expect(deriveIntentDigest(byName(name).intent, byName(name).data)).not.toBe(basic);
    }
  });

  it('per-field digests name exactly the fields that differ', () => {
    const a = byName('basic');
    const b = byName('data-partition-changed');
    expect(
      differingIntentFields(intentFieldDigests(a.intent, a.data), intentFieldDigests(b.intent, b.data)),
    ).toEqual(['data.partition.value']);
    expect(
      differingIntentFields(intentFieldDigests(a.intent, a.data), intentFieldDigests(a.intent, a.data)),
    ).toEqual([]);
  });

  it('fields differing only in where one ends and the next begins give different ids', () => {
    const a = byName('boundary-a');
    const b = byName('boundary-b');
    expect(a.identity.dag_id + a.identity.dag_run_logical_identity).toBe(
      b.identity.dag_id + b.identity.dag_run_logical_identity,
    );
    expect(deriveOperationId(a.identity)).not.toBe(deriveOperationId(b.identity));
    expect(deriveIntentDigest(a.intent, a.data)).not.toBe(deriveIntentDigest(b.intent, b.data));
  });

  it('intervals written with different offsets that name the same UTC instants give one id', () => {
    const basic = deriveOperationId(byName('basic').identity);
    expect(deriveOperationId(byName('offset-plus-two').identity)).toBe(basic);
    expect(deriveOperationId(byName('offset-minus-0530-compact').identity)).toBe(basic);
  });

  it('does not normalise Unicode: NFC and NFD spellings differ', () => {
    expect(deriveOperationId(byName('unicode-nfc').identity)).not.toBe(
      deriveOperationId(byName('unicode-nfd').identity),
    );
  });

  it('writes the documented canonical text', () => {
    expect(canonicalEncoding('d', { b: 'x"y', a: 'é\n' })).toBe('d\n{"a":"é\\n","b":"x\\"y"}');
  });

  it('operation id and intent digest are sha256: + 64 lower-case hex', () => {
    for (const vector of published.vectors) {
      expect(vector.operation_id).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(vector.intent_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });
});

describe('identity validation', () => {
  const identity = byName('basic').identity;
  const intent = byName('basic').intent;

  it.each([
    ['try_number', 'identity.try_number'],
    ['pod_name', 'identity.pod_name'],
    ['tryNumber', 'identity.tryNumber'],
    ['correlation-id', 'identity.correlation-id'],
  ])('refuses the forbidden field %s, saying it is forbidden', (key, field) => {
    const error = refusal(() => parseIdentity({ ...identity, [key]: '3' }));
    expect(error.fields.field).toBe(field);
    expect(error.message).toMatch(/forbidden/);
  });

  it('refuses a forbidden field inside the interval', () => {
    const error = refusal(() =>
      parseIdentity({ ...identity, canonical_interval: { ...identity.canonical_interval, now: 'x' } }),
    );
    expect(error.fields.field).toBe('identity.canonical_interval.now');
  });

  it.each([
    ['missing', undefined, /missing/],
    ['null', null, /missing/],
    ['empty', '', /empty/],
    ['a number', 7, /string/],
    ['a list', ['a'], /string/],
    ['a lone surrogate', 'a\ud800', /Unicode/],
  ])('refuses dag_id %s', (_label, value, message) => {
    const error = refusal(() => parseIdentity({ ...identity, dag_id: value }));
    expect(error.fields.field).toBe('identity.dag_id');
    expect(error.message).toMatch(message);
  });

  it('refuses an identity that is not a map', () => {
    expect(refusal(() => parseIdentity('x')).fields.field).toBe('identity');
  });

  it.each([
    ['2026-07-18T00:00:00', 'no zone'],
    ['2026-07-18', 'a date alone'],
    ['2026-02-29T00:00:00Z', 'a day of a common year that does not exist'],
    ['2026-07-18T24:00:00Z', 'hour 24'],
    ['2026-07-18T23:59:60Z', 'a leap second'],
    ['2026-07-18T00:00:00.0005Z', 'sub-millisecond precision'],
    ['2026-07-18 00:00:00Z', 'a space separator'],
    ['yesterday', 'not a timestamp'],
  ])('refuses interval start %s (%s)', (start) => {
    const error = refusal(() => normalizeInterval({ start, end: '2030-01-01T00:00:00Z' }));
    expect(error.fields.field).toBe('identity.canonical_interval.start');
  });

  it('refuses start >= end after normalisation', () => {
    expect(
      refusal(() => normalizeInterval({ start: '2026-07-18T02:00:00+02:00', end: '2026-07-18T00:00:00Z' }))
        .fields.field,
    ).toBe('identity.canonical_interval');
    expect(
      refusal(() => normalizeInterval({ start: '2026-07-19T00:00:00Z', end: '2026-07-18T00:00:00Z' })).fields
        .field,
    ).toBe('identity.canonical_interval');
  });

  it('normalises to UTC with millisecond precision', () => {
    expect(
      normalizeInterval({ start: '2026-07-18T02:00+02:00', end: '2026-07-18T00:00:01.5-00:30' }),
    ).toEqual({ start: '2026-07-18T00:00:00.000Z', end: '2026-07-18T00:30:01.500Z' });
  });

  it('refuses an intent field of the wrong type or an unknown intent field', () => {
    expect(refusal(() => parseIntent({ ...intent, schema_fingerprint: 1 })).fields.field).toBe(
      'intent.schema_fingerprint',
    );
    expect(refusal(() => parseIntent({ ...intent, extra: 'x' })).fields.field).toBe('intent.extra');
  });
});
