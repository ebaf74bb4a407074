import type { RuntimeFlaws } from '../ports/unsafe-variants.ts';
import { HARNESS_ENV, UNSAFE_VARIANTS, UNSAFE_VARIANT_ENV } from '../ports/unsafe-variants.ts';

/**
 * The requested variant's name under DPONE_HARNESS=1 when it breaks the TARGET (or is unknown, so
 * the target refuses it by name), else null: a runtime-only variant leaves the target certified.
 */
export function requestedUnsafeVariant(env: NodeJS.ProcessEnv): string | null {
  const name = env[UNSAFE_VARIANT_ENV];
  if (!name || env[HARNESS_ENV] !== '1') return null;
  const variant = Object.hasOwn(UNSAFE_VARIANTS, name) ? UNSAFE_VARIANTS[name] : undefined;
  return variant?.runtime !== undefined && Object.keys(variant.flaws).length === 0 ? null : name;
}

/** The executor flaws of the requested variant under DPONE_HARNESS=1 (none: an empty object). */
export function requestedRuntimeFlaws(env: NodeJS.ProcessEnv): RuntimeFlaws {
  const name = env[UNSAFE_VARIANT_ENV];
  if (!name || env[HARNESS_ENV] !== '1' || !Object.hasOwn(UNSAFE_VARIANTS, name)) return {};
  return UNSAFE_VARIANTS[name]!.runtime ?? {};
}
