import { requestedUnsafeVariant } from '../../../test-hooks/index.ts';
import type { MarkerDialect } from './marker-dialect.ts';
import type { MarkerTarget, MarkerTargetOptions } from './marker-target.ts';

/**
 * Opens a connector's marker target: the certified one, or under DPONE_HARNESS=1 the unsafe
 * variant DPONE_UNSAFE_VARIANT names (an unknown name is refused before anything is opened).
 */
export async function openMarkerTarget<T extends MarkerTarget>(
  env: NodeJS.ProcessEnv,
  open: () => Promise<MarkerDialect>,
  options: MarkerTargetOptions,
  certified: (dialect: MarkerDialect, options: MarkerTargetOptions) => T,
): Promise<T | MarkerTarget> {
  const variant = requestedUnsafeVariant(env);
  if (variant !== null) {
    const { unsafeMarkerTarget } = await import('./marker-unsafe-target.ts');
    return unsafeMarkerTarget(variant, open, options);
  }
  return certified(await open(), options);
}
