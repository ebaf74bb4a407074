import { UNSAFE_VARIANTS } from '../../../ports/unsafe-variants.ts';

/**
 * DELIBERATELY BROKEN MSSQL targets for the harness's sensitivity check (the shared catalogue,
 * built by ../marker-fence/marker-unsafe-target.ts): each must make the certification FAIL.
 * Reachable only through MssqlTarget.open with DPONE_HARNESS=1.
 */
export const UNSAFE_MSSQL_VARIANTS: readonly string[] = Object.keys(UNSAFE_VARIANTS);
