import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { refuseUnshowableVariants, variantsTheDataCannotShow } from './variant-data.ts';

describe('variants a route can catch', () => {
  it('a route whose cells carry no zoned instant refuses timezone-shifted with the reason, never offers it to survive', () => {
    expect(variantsTheDataCannotShow(['value-changed', 'timezone-shifted'], [])).toEqual([
      { variant: 'timezone-shifted', needs: 'zoned-instants' },
    ]);
    let refusal: unknown;
    try {
      refuseUnshowableVariants('route-x', ['value-changed', 'timezone-shifted'], []);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: 'target.unsafeVariants' },
    });
    expect((refusal as Error).message).toContain(
      "route route-x offers unsafe variant(s) its cells' data cannot exercise: timezone-shifted (shown only by instants with a time zone, which its cells do not carry)",
    );
    expect((refusal as Error).message).not.toContain('value-changed');
  });
});
