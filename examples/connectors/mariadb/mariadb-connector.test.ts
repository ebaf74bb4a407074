import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MarkerDialect } from 'dpone-cert';
import { MarkerTarget, fenceContractVariantsFor, unsafeVariantsFor } from 'dpone-cert';
import {
  ATOMICITY_CHECKS,
  FENCE_CHECKS,
  checkFenceContract,
  describeFenceConformance,
} from 'dpone-cert/testing';
import connector from './mariadb-connector.ts';
import type { MariadbAddress } from './mariadb-database.ts';
import { MARIADB_FENCE_LOCATION } from './mariadb-target.ts';
import {
  autocommitChunks,
  epochIgnoringFence,
  secondConnectionFence,
  twoTransactionCommit,
} from './fixtures/mariadb-classic-mistakes.ts';
import { factory, skipReason, stopTestServer } from './fixtures/mariadb-kit-factory.ts';

// Live on a throw-away mariadbd this file starts; skipped with the reason where none is installed
// (outside CI only: with CI=true a missing server fails these tests).
const skip = skipReason();
if (skip) console.warn(skip);
afterAll(stopTestServer, 60_000);

const certified = factory((endpoint, _address, faults) =>
  connector.target!.open(endpoint, { faults, readOnly: false }),
);

// The connector kit, exactly as a connector author runs it from their own test file.
describeFenceConformance(
  'mariadb (examples/connectors/mariadb)',
  certified,
  skip ? { skipReason: skip } : {},
);

const [streamFails, crashAnywhere] = ATOMICITY_CHECKS.map((check) => check.name) as [string, string];
const staleEpoch = FENCE_CHECKS.map((check) => check.name).find((name) => name.includes('stale epoch'))!;

const copyOf = (broken: (address: MariadbAddress, table: string) => MarkerDialect) =>
  factory(
    async (endpoint, address, faults) =>
      new MarkerTarget(broken(address, endpoint.table), {
        identity: 'mariadb:conformance',
        fenceLocation: MARIADB_FENCE_LOCATION,
        faults,
      }),
  );

async function failedChecks(
  broken: (address: MariadbAddress, table: string) => MarkerDialect,
): Promise<string[]> {
  const results = await checkFenceContract(copyOf(broken));
  return results.filter((result) => !result.passed).map((result) => result.name);
}

describe.skipIf(skip !== undefined)('the connector kit catches a broken MariaDB connector', () => {
  it('a fence committed on a second connection: the failed stream leaves the fence committed, a crash before COMMIT too', async () => {
    expect(await failedChecks(secondConnectionFence)).toEqual([streamFails, crashAnywhere]);
  }, 120_000);

  it('rows inserted in autocommit chunks before the fence transaction: a row of the failed stream stays', async () => {
    expect(await failedChecks(autocommitChunks)).toEqual([streamFails, crashAnywhere]);
  }, 120_000);

  it('a guard that ignores the epoch: the zombie with a stale epoch commits', async () => {
    expect(await failedChecks(epochIgnoringFence)).toEqual([staleEpoch]);
  }, 120_000);

  it('the data and the fence committed as two transactions inside one commit(): a crash between the COMMITs', async () => {
    expect(await failedChecks(twoTransactionCommit)).toEqual([crashAnywhere]);
  }, 120_000);

  it.each(fenceContractVariantsFor('transactional-commit-marker'))(
    'fails the fence contract on the unsafe variant %s the connector offers the certification',
    async (variant) => {
      const unsafe = factory((endpoint, _address, faults) =>
        connector.target!.openUnsafe!(variant, endpoint, { faults, readOnly: false }),
      );
      expect((await checkFenceContract(unsafe)).some((result) => !result.passed)).toBe(true);
    },
    120_000,
  );
});

describe('a third-party connector: nothing of dpone names it', () => {
  it('offers every variant of its capability', () => {
    expect(connector.target!.unsafeVariants).toEqual(unsafeVariantsFor('transactional-commit-marker'));
  });

  it('no file under src/, connectors/, harness/ or testing/ mentions MariaDB (it is loaded as a plug-in only)', () => {
    const root = join(import.meta.dirname, '..', '..', '..');
    const naming = ['src', 'connectors', 'harness', 'testing']
      .flatMap((dir) => readdirSync(join(root, dir), { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .filter((file) => /mariadb/i.test(file) || /mariadb/i.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(naming).toEqual([]);
  });
});
