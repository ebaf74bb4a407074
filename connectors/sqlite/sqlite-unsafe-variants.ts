import type { TargetConnector } from '../../src/ports/connector.ts';
import {
  SHARED_UNSAFE_VARIANTS,
  assembleUnsafeCatalogue,
  targetVariantsFor,
  unsafeVariantFlaws,
} from '../../src/ports/unsafe-variants.ts';
import { requestedUnsafeVariant } from '../../src/test-hooks/index.ts';
import { openMarkerTarget } from '../../src/adapters/connectors/marker-fence/open-marker-target.ts';
import { unsafeMarkerTarget } from '../../src/adapters/connectors/marker-fence/marker-unsafe-target.ts';
import { sqliteDialect } from './sqlite-dialect.ts';
import { SQLITE_UNSAFE_CATALOGUE } from './sqlite-variant-catalogue.ts';
import type { SqliteTargetOptions } from './sqlite-target.ts';
import { SqliteTarget, markerOptions, openTargetDatabase } from './sqlite-target.ts';

/**
 * DELIBERATELY BROKEN SQLite targets for the harness's sensitivity check (the shared catalogue's
 * and this engine's own, sqlite-variant-catalogue.ts; built by
 * ../marker-fence/marker-unsafe-target.ts but for the file's syncing): each must make the
 * certification FAIL. They are reachable only through `sqliteTargetForHarness` with DPONE_HARNESS=1.
 */
/** The variants this engine knows: the shared catalogue and its own. */
const KNOWN = assembleUnsafeCatalogue(SHARED_UNSAFE_VARIANTS, [['sqlite', SQLITE_UNSAFE_CATALOGUE]]);

type VariantFactory = (options: SqliteTargetOptions) => Promise<TargetConnector>;

function variant(name: string): VariantFactory {
  const synchronous = KNOWN[name]?.flaws.synchronous;
  if (synchronous !== undefined) return unsyncedTarget(synchronous);
  return (options) =>
    unsafeMarkerTarget(
      name,
      async () => sqliteDialect(openTargetDatabase(options), options.table, options.path),
      markerOptions(options),
      unsafeVariantFlaws(name, 'transactional-commit-marker', KNOWN),
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

/** The unsafe variants by name (the shared catalogue's and its own); each must be caught by the certification suite. */
export const UNSAFE_SQLITE_VARIANTS: Readonly<Record<string, VariantFactory>> = Object.fromEntries(
  targetVariantsFor('transactional-commit-marker', 'sqlite', KNOWN).map((name) => [name, variant(name)]),
);

/**
 * The SQLite target for a process the harness started: DPONE_UNSAFE_VARIANT=<name> selects an
 * unsafe variant, honoured only together with DPONE_HARNESS=1; otherwise the certified target.
 */
export function sqliteTargetForHarness(
  options: SqliteTargetOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TargetConnector> {
  const requested = requestedUnsafeVariant(env, KNOWN);
  const synchronous = requested === null ? undefined : KNOWN[requested]?.flaws.synchronous;
  if (synchronous !== undefined) return unsyncedTarget(synchronous)(options);
  return openMarkerTarget(
    env,
    async () => sqliteDialect(openTargetDatabase(options), options.table, options.path),
    markerOptions(options),
    (dialect, marker) => new SqliteTarget(dialect, marker),
    KNOWN,
  );
}
