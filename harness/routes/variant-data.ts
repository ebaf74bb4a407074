import { invalidInput } from '../../src/contracts/errors.ts';
import { UNSAFE_VARIANTS } from '../../src/cli/unsafe-catalogue.ts';
import type { VariantData } from '../../src/ports/unsafe-variants.ts';

/** What each kind of value is, as a refusal names it. */
const DATA_NAMES: Record<VariantData, string> = {
  'zoned-instants': 'instants with a time zone',
};

/**
 * The variants of `names` whose flaw only values the route's cells do not carry would show
 * (UnsafeVariant.shownBy): offered, they could only survive every cell.
 */
export function variantsTheDataCannotShow(
  names: readonly string[],
  carried: readonly VariantData[],
): readonly { readonly variant: string; readonly needs: VariantData }[] {
  return names.flatMap((variant) => {
    const needs = Object.hasOwn(UNSAFE_VARIANTS, variant) ? UNSAFE_VARIANTS[variant]!.shownBy : undefined;
    return needs !== undefined && !carried.includes(needs) ? [{ variant, needs }] : [];
  });
}

/**
 * Refuses a route whose offered variants its cells' data cannot exercise, with the reason, rather
 * than certifying a list of which one variant can only survive (or dropping it unsaid).
 */
export function refuseUnshowableVariants(
  route: string,
  names: readonly string[],
  carried: readonly VariantData[],
): void {
  const unshowable = variantsTheDataCannotShow(names, carried);
  if (unshowable.length === 0) return;
  const reasons = unshowable.map(
    ({ variant, needs }) => `${variant} (shown only by ${DATA_NAMES[needs]}, which its cells do not carry)`,
  );
  throw invalidInput(
    `route ${route} offers unsafe variant(s) its cells' data cannot exercise: ${reasons.join('; ')}; no cell could catch them, so remove them from target.unsafeVariants`,
    { field: 'target.unsafeVariants' },
  );
}
