import { targetVariantsFor } from '../../src/ports/unsafe-variants.ts';

/**
 * DELIBERATELY BROKEN MSSQL targets for the harness's sensitivity check (the shared catalogue's
 * variants that are really unsafe on a transactional marker, built by
 * ../marker-fence/marker-unsafe-target.ts): each must make the certification FAIL.
 * Reachable only through MssqlTarget.open with DPONE_HARNESS=1.
 */
export const UNSAFE_MSSQL_VARIANTS: readonly string[] = targetVariantsFor('transactional-commit-marker');
