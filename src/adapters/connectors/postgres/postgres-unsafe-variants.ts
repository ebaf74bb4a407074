import { targetVariantsFor } from '../../../ports/unsafe-variants.ts';

/**
 * DELIBERATELY BROKEN PostgreSQL targets for the harness's sensitivity check (the shared catalogue's
 * variants that are really unsafe on a transactional marker, built by
 * ../marker-fence/marker-unsafe-target.ts): each must make the certification FAIL.
 * Reachable only through PostgresTarget.open with DPONE_HARNESS=1.
 */
export const UNSAFE_POSTGRES_VARIANTS: readonly string[] = targetVariantsFor('transactional-commit-marker');
