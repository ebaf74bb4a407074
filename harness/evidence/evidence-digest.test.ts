import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import { evidenceDigest, withDigest } from './evidence-digest.ts';
import { evidenceOf } from '../checkers/fixtures/sample-evidence.ts';

function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reversed(item)]),
  );
}

describe('evidence digest', () => {
  it('writes canonical JSON with sorted keys, no whitespace, undefined members dropped', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], c: { z: 1, y: undefined } })).toBe(
      '{"a":[true,null,"x"],"b":1,"c":{"z":1}}',
    );
  });

  it('is stable under key order and ignores the digest field itself', () => {
    const evidence = evidenceOf([]);
    const digest = evidenceDigest(evidence);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(evidenceDigest(reversed(evidence) as typeof evidence)).toBe(digest);
    expect(evidenceDigest({ ...evidence, digest: 'sha256:other' })).toBe(digest);
    expect(withDigest(evidence).digest).toBe(digest);
  });

  it('changes when any value changes', () => {
    const evidence = evidenceOf([]);
    expect(evidenceDigest({ ...evidence, seed: 43 })).not.toBe(evidenceDigest(evidence));
  });

  it('refuses a non-finite number rather than hashing it as null', () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(
      expect.objectContaining({ code: 'DPONE_INVALID_INPUT' }),
    );
  });
});
