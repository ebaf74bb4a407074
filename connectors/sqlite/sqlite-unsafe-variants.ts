import type { TargetConnector } from '../../src/ports/connector.ts';
import { UNSAFE_VARIANTS, targetVariantsFor } from '../../src/ports/unsafe-variants.ts';
import { requestedUnsafeVariant } from '../../src/test-hooks/index.ts';
import { openMarkerTarget } from '../../src/adapters/connectors/marker-fence/open-marker-target.ts';
import { unsafeMarkerTarget } from '../../src/adapters/connectors/marker-fence/marker-unsafe-target.ts';
import { sqliteDialect } from './sqlite-dialect.ts';
import type { SqliteTargetOptions } from './sqlite-target.ts';
import { SqliteTarget, markerOptions, openTargetDatabase } from './sqlite-target.ts';

/**
 * DELIBERATELY BROKEN SQLite targets for the harness's sensitivity check (the shared catalogue,
 * built by ../marker-fence/marker-unsafe-target.ts): each must make the certification FAIL. They
 * are reachable only through `sqliteTargetForHarness` with DPONE_HARNESS=1.
 */
type VariantFactory = (options: SqliteTargetOptions) => Promise<TargetConnector>;

function variant(name: string): VariantFactory {
  const synchronous = UNSAFE_VARIANTS[name]?.flaws.synchronous;
  if (synchronous !== undefined) return unsyncedTarget(synchronous);
  return (options) =>
    unsafeMarkerTarget(
      name,
      async () => sqliteDialect(openTargetDatabase(options), options.table, options.path),
      markerOptions(options),
    );
}

/**
 * `target-sync-off` and `target-sync-normal`: the certified target and fence, on a file opened with
 * synchronous OFF or NORMAL (a flaw of the connection, not of the marker protocol, so the marker
 * kernel cannot build it).
 */
const unsyncedTarget =
  (synchronous: 'OFF' | 'NORMAL'): VariantFactory =>
  async (options) =>
    new SqliteTarget(
      sqliteDialect(openTargetDatabase(options, true, { synchronous }), options.table, options.path),
      markerOptions(options),
    );

/** The unsafe variants by name (the shared catalogue); each must be caught by the certification suite. */
export const UNSAFE_SQLITE_VARIANTS: Readonly<Record<string, VariantFactory>> = Object.fromEntries(
  targetVariantsFor('transactional-commit-marker', 'sqlite').map((name) => [name, variant(name)]),
);

/**
 * The SQLite target for a process the harness started: DPONE_UNSAFE_VARIANT=<name> selects an
 * unsafe variant, honoured only together with DPONE_HARNESS=1; otherwise the certified target.
 */
export function sqliteTargetForHarness(
  options: SqliteTargetOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TargetConnector> {
  const requested = requestedUnsafeVariant(env);
  const synchronous = requested === null ? undefined : UNSAFE_VARIANTS[requested]?.flaws.synchronous;
  if (synchronous !== undefined) return unsyncedTarget(synchronous)(options);
  return openMarkerTarget(
    env,
    async () => sqliteDialect(openTargetDatabase(options), options.table, options.path),
    markerOptions(options),
    (dialect, marker) => new SqliteTarget(dialect, marker),
  );
}
