import { defineConnector, unsafeVariantsFor } from 'dpone-cert';
import type { PluginHarness } from 'dpone-cert/testing';
import { duckdbHarness } from './duckdb-harness.ts';
import {
  DUCKDB_FENCE_LOCATION,
  openDuckdbTarget,
  openPlainDuckdbTarget,
  openUnsafeDuckdbTarget,
} from './duckdb-target.ts';

/**
 * A DuckDB target for dpone, written as a third-party plug-in: it imports only `dpone-cert` and
 * `dpone-cert/testing`. A workload uses it with
 *
 *   route: sqlite-to-duckdb
 *   target: { connector: ./path/to/duckdb-connector.ts, url: 'duckdb:data/target.duckdb', table: events }
 *
 * and `dpone certify run --route sqlite-to-duckdb` certifies it (package.json `dpone.connectors`,
 * or `--connector`). A certification names `dpone-connector-duckdb@0.1.0`: bump the version with
 * any change to the fence or commit code, and re-certify.
 */
export default defineConnector<PluginHarness>({
  meta: { name: 'dpone-connector-duckdb', version: '0.1.0' },
  target: {
    capability: 'transactional-commit-marker',
    fenceLocation: () => DUCKDB_FENCE_LOCATION,
    open: openDuckdbTarget,
    // Every variant of the catalogue that is really unsafe on a transactional marker.
    unsafeVariants: unsafeVariantsFor('transactional-commit-marker'),
    openUnsafe: openUnsafeDuckdbTarget,
    // Capability none for fenceless workloads (`target.fence: none`): plain writes, no fence.
    openPlain: openPlainDuckdbTarget,
  },
  harness: duckdbHarness,
});
