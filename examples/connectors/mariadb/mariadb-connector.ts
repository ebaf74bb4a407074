import { defineConnector, unsafeVariantsFor } from 'dpone-cert';
import type { PluginHarness } from 'dpone-cert/testing';
import { mariadbHarness } from './mariadb-harness.ts';
import {
  MARIADB_FENCE_LOCATION,
  openMariadbTarget,
  openPlainMariadbTarget,
  openUnsafeMariadbTarget,
} from './mariadb-target.ts';

/**
 * A MariaDB target for dpone, written as a third-party plug-in on a client/server database: it
 * imports only `dpone-cert` and `dpone-cert/testing` (and mysql2, loaded lazily). A workload uses it with
 *
 *   route: sqlite-to-mariadb
 *   target: { connector: ./path/to/mariadb-connector.ts, url: 'mariadb://loader@db.example:3306/warehouse',
 *             table: events, password_env: MARIADB_PASSWORD }
 *
 * and `dpone certify run --route sqlite-to-mariadb --connector <this file>` certifies it; the
 * harness part starts a throw-away mariadbd for the run. A certification names
 * `dpone-connector-mariadb@0.1.0`: bump the version with any change to the fence or commit code.
 */
export default defineConnector<PluginHarness>({
  meta: { name: 'dpone-connector-mariadb', version: '0.1.0' },
  target: {
    capability: 'transactional-commit-marker',
    fenceLocation: () => MARIADB_FENCE_LOCATION,
    open: openMariadbTarget,
    // Every variant of the catalogue that is really unsafe on a transactional marker.
    unsafeVariants: unsafeVariantsFor('transactional-commit-marker'),
    openUnsafe: openUnsafeMariadbTarget,
    // Capability none for fenceless workloads (`target.fence: none`): plain writes, no fence.
    openPlain: openPlainMariadbTarget,
  },
  harness: mariadbHarness,
});
