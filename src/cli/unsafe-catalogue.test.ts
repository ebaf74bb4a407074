import { describe, expect, it } from 'vitest';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';
import { UNSAFE_VARIANTS, unsafeVariantFlaws, unsafeVariantsFor } from './unsafe-catalogue.ts';
import { SHARED_UNSAFE_VARIANTS, assembleUnsafeCatalogue } from '../ports/unsafe-variants.ts';
import { requestedUnsafeVariant, withoutRuntimeOnlyVariant } from '../test-hooks/index.ts';

const harness = (variant: string) => ({ DPONE_HARNESS: '1', DPONE_UNSAFE_VARIANT: variant, OTHER: 'x' });

describe('the assembled unsafe-variant catalogue', () => {
  it('is the shared catalogue and each engine’s own, each name once', () => {
    const own = Object.values(BUILT_IN_CONNECTORS).flatMap((engine) =>
      Object.keys(engine.unsafeCatalogue ?? {}),
    );
    expect(own.length).toBeGreaterThan(0);
    expect(Object.keys(UNSAFE_VARIANTS).sort()).toEqual(
      [...Object.keys(SHARED_UNSAFE_VARIANTS), ...own].sort(),
    );
    expect(() => assembleUnsafeCatalogue(SHARED_UNSAFE_VARIANTS, [['e', SHARED_UNSAFE_VARIANTS]])).toThrow(
      /already in the catalogue/,
    );
  });

  it('keeps the flaws one engine offers out of the shared catalogue', () => {
    // A flaw for some engines only, or of a server the harness starts, is that engine's.
    const engineOnly = Object.entries(SHARED_UNSAFE_VARIANTS).filter(
      ([, variant]) => variant.engines !== undefined || variant.server !== undefined,
    );
    expect(engineOnly).toEqual([]);
  });

  it('looks an engine’s own variant up for the host and the harness', () => {
    const own = Object.entries(UNSAFE_VARIANTS).find(
      ([name]) => !Object.hasOwn(SHARED_UNSAFE_VARIANTS, name),
    );
    expect(own).toBeDefined();
    const [name, variant] = own!;
    expect(unsafeVariantFlaws(name)).toBe(variant.flaws);
    for (const capability of variant.unsafeOn)
      if (variant.engines === undefined) expect(unsafeVariantsFor(capability)).toContain(name);
  });
});

describe('withoutRuntimeOnlyVariant', () => {
  // An executor flaw an engine registers (its journal's) leaves every target certified: a built-in
  // engine is opened without the variable, whichever engine it is.
  const runtimeOnly = Object.entries(UNSAFE_VARIANTS).find(
    ([name, variant]) =>
      !Object.hasOwn(SHARED_UNSAFE_VARIANTS, name) &&
      variant.runtime !== undefined &&
      Object.keys(variant.flaws).length === 0,
  )![0];
  const targetFlaw = Object.entries(UNSAFE_VARIANTS).find(
    ([name, variant]) =>
      !Object.hasOwn(SHARED_UNSAFE_VARIANTS, name) && Object.keys(variant.flaws).length > 0,
  )![0];

  it('drops a variant that is the executor’s alone in the whole catalogue', () => {
    expect(requestedUnsafeVariant(harness(runtimeOnly))).toBe(runtimeOnly);
    const env = withoutRuntimeOnlyVariant(harness(runtimeOnly), UNSAFE_VARIANTS);
    expect(env).toEqual({ DPONE_HARNESS: '1', OTHER: 'x' });
    expect(requestedUnsafeVariant(env)).toBeNull();
  });

  it('keeps a variant that breaks a target, an unknown one, and an environment without one', () => {
    const target = harness(targetFlaw);
    expect(withoutRuntimeOnlyVariant(target, UNSAFE_VARIANTS)).toBe(target);
    const unknown = harness('no-such-variant');
    expect(withoutRuntimeOnlyVariant(unknown, UNSAFE_VARIANTS)).toBe(unknown);
    const none = { DPONE_HARNESS: '1' };
    expect(withoutRuntimeOnlyVariant(none, UNSAFE_VARIANTS)).toBe(none);
  });
});
