import { requestedUnsafeVariant } from '../../../test-hooks/index.ts';
import type { UnsafeCatalogue } from '../../../ports/unsafe-variants.ts';
import { SHARED_UNSAFE_VARIANTS, unsafeVariantFlaws } from '../../../ports/unsafe-variants.ts';
import type { MarkerDialect } from './marker-dialect.ts';
import type { MarkerTarget, MarkerTargetOptions } from './marker-target.ts';

/**
 * Opens a connector's marker target: the certified one, or under DPONE_HARNESS=1 the unsafe
 * variant DPONE_UNSAFE_VARIANT names (an unknown name is refused before anything is opened).
 * `catalogue`: the variants the connector knows, the shared ones and, for an engine with flaws of
 * its own the kernel builds (ConnectorPlugin.unsafeCatalogue), those too.
 */
export async function openMarkerTarget<T extends MarkerTarget>(
  env: NodeJS.ProcessEnv,
  open: () => Promise<MarkerDialect>,
  options: MarkerTargetOptions,
  certified: (dialect: MarkerDialect, options: MarkerTargetOptions) => T,
  catalogue: UnsafeCatalogue = SHARED_UNSAFE_VARIANTS,
): Promise<T | MarkerTarget> {
  const variant = requestedUnsafeVariant(env, catalogue);
  if (variant !== null) {
    const flaws = unsafeVariantFlaws(variant, 'transactional-commit-marker', catalogue);
    const { unsafeMarkerTarget } = await import('./marker-unsafe-target.ts');
    return unsafeMarkerTarget(variant, open, options, flaws);
  }
  return certified(await open(), options);
}
