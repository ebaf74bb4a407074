import { invalidInput } from '../contracts/errors.ts';

/**
 * The catalogue of DELIBERATELY BROKEN target behaviours every connector offers the harness's
 * sensitivity check (each must make a certification FAIL). A connector implements the flaws; this
 * file only names them, so every route is tested against the same list.
 */
export interface TargetFlaws {
  /** prepareFence does nothing and mutate writes without any guard or marker. */
  readonly noFence?: boolean;
  /** queryFence answers not-committed even when the marker says committed. */
  readonly queryLies?: boolean;
  /** Data commits in one transaction, the marker in a later one. */
  readonly splitMarker?: boolean;
  /** The guard ignores the epoch and prepareFence never raises it (a zombie can still commit). */
  readonly ignoreEpoch?: boolean;
}

export const UNSAFE_VARIANTS: Readonly<Record<string, TargetFlaws>> = {
  'no-fence': { noFence: true },
  'query-lies': { queryLies: true },
  'split-marker': { splitMarker: true },
  'ignore-epoch': { ignoreEpoch: true },
};

/** Selects the variant; both variables are required so a stray one can never turn fencing off. */
export const UNSAFE_VARIANT_ENV = 'DPONE_UNSAFE_VARIANT';
export const HARNESS_ENV = 'DPONE_HARNESS';

/** The requested variant's name under DPONE_HARNESS=1, else null. */
export function requestedUnsafeVariant(env: NodeJS.ProcessEnv): string | null {
  const name = env[UNSAFE_VARIANT_ENV];
  return name && env[HARNESS_ENV] === '1' ? name : null;
}

/** The flaws of a named variant; an unknown name is bad input naming the variable. */
export function unsafeVariantFlaws(name: string): TargetFlaws {
  const flaws = Object.hasOwn(UNSAFE_VARIANTS, name) ? UNSAFE_VARIANTS[name] : undefined;
  if (!flaws) throw invalidInput(`unknown unsafe variant "${name}"`, { field: UNSAFE_VARIANT_ENV });
  return flaws;
}
