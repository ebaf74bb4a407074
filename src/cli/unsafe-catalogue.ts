import type { FenceCapabilityKind } from '../ports/connector.ts';
import type { TargetFlaws, UnsafeCatalogue } from '../ports/unsafe-variants.ts';
import {
  SHARED_UNSAFE_VARIANTS,
  assembleUnsafeCatalogue,
  fenceContractVariantsFor as fenceContractVariantsIn,
  unsafeVariantFlaws as unsafeVariantFlawsIn,
  unsafeVariantsFor as unsafeVariantsIn,
} from '../ports/unsafe-variants.ts';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';

/**
 * The whole unsafe-variant catalogue of this build, assembled at the composition root: the shared
 * one (src/ports/unsafe-variants.ts: flaws any target of a capability, or the executor, can have)
 * and each built-in engine's own (ConnectorPlugin.unsafeCatalogue, from its folder), in the engine
 * table's order. Every lookup by name, in the host and the harness, asks this one; the functions
 * below are the shared ones over it.
 */
export const UNSAFE_VARIANTS: UnsafeCatalogue = assembleUnsafeCatalogue(
  SHARED_UNSAFE_VARIANTS,
  Object.entries(BUILT_IN_CONNECTORS).flatMap(([engine, entry]) =>
    entry.unsafeCatalogue ? [[engine, entry.unsafeCatalogue] as const] : [],
  ),
);

/** The variants a target of this capability (and engine) is certified against, from the whole catalogue. */
export function unsafeVariantsFor(capability: FenceCapabilityKind, engine?: string): string[] {
  return unsafeVariantsIn(capability, engine, UNSAFE_VARIANTS);
}

/** The variants of this capability the fence contract alone must fail on, from the whole catalogue. */
export function fenceContractVariantsFor(capability: FenceCapabilityKind): string[] {
  return fenceContractVariantsIn(capability, UNSAFE_VARIANTS);
}

/** The flaws of a named variant of the whole catalogue (unknown, or not offered on `capability`: bad input). */
export function unsafeVariantFlaws(name: string, capability?: FenceCapabilityKind): TargetFlaws {
  return unsafeVariantFlawsIn(name, capability, UNSAFE_VARIANTS);
}
