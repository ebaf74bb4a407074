import type { RuntimeFlaws, UnsafeCatalogue } from '../ports/unsafe-variants.ts';
import { HARNESS_ENV, SHARED_UNSAFE_VARIANTS, UNSAFE_VARIANT_ENV } from '../ports/unsafe-variants.ts';

/*
 * `catalogue`: where the requested name is looked up. The host passes the whole catalogue
 * (src/cli/unsafe-catalogue.ts); an engine its view, the shared one and its own, which is enough:
 * the host hands a built-in engine the environment without a variant that leaves the target
 * certified (withoutRuntimeOnlyVariant), so an engine never sees another engine's executor flaw.
 */

/**
 * The requested variant's name under DPONE_HARNESS=1 when it breaks the TARGET (or is unknown, so
 * the target refuses it by name), else null: a runtime-only variant leaves the target certified.
 */
export function requestedUnsafeVariant(
  env: NodeJS.ProcessEnv,
  catalogue: UnsafeCatalogue = SHARED_UNSAFE_VARIANTS,
): string | null {
  const name = env[UNSAFE_VARIANT_ENV];
  if (!name || env[HARNESS_ENV] !== '1') return null;
  const variant = Object.hasOwn(catalogue, name) ? catalogue[name] : undefined;
  return variant?.runtime !== undefined && Object.keys(variant.flaws).length === 0 ? null : name;
}

/** The executor flaws of the requested variant under DPONE_HARNESS=1 (none: an empty object). */
export function requestedRuntimeFlaws(env: NodeJS.ProcessEnv, catalogue: UnsafeCatalogue): RuntimeFlaws {
  const name = env[UNSAFE_VARIANT_ENV];
  if (!name || env[HARNESS_ENV] !== '1' || !Object.hasOwn(catalogue, name)) return {};
  return catalogue[name]!.runtime ?? {};
}

/**
 * The environment a built-in engine is opened with: `env` itself, or without the variable when the
 * variant it names is the executor's alone (in the whole `catalogue`), so the target is the
 * certified one however the engine looks the name up.
 */
export function withoutRuntimeOnlyVariant(
  env: NodeJS.ProcessEnv,
  catalogue: UnsafeCatalogue,
): NodeJS.ProcessEnv {
  if (env[UNSAFE_VARIANT_ENV] === undefined || requestedUnsafeVariant(env, catalogue) !== null) return env;
  const { [UNSAFE_VARIANT_ENV]: _variant, ...rest } = env;
  return rest;
}
