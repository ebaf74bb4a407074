import { describe, expect, it } from 'vitest';
import type { MarkerDialect } from 'dpone-cert';
import { MarkerTarget } from 'dpone-cert';
import { ATOMICITY_CHECKS, FENCE_CHECKS, checkFenceContract } from 'dpone-cert/testing';
import connector from './duckdb-connector.ts';
import { DUCKDB_FENCE_LOCATION } from './duckdb-target.ts';
import {
  autocommitChunks,
  epochBlindFence,
  secondConnectionFence,
  twoTransactionsInOneCommit,
} from './fixtures/duckdb-classic-mistakes.ts';
import { factory } from './fixtures/duckdb-kit-factory.ts';

/**
 * The classic mistakes of a transactional-marker connector (issue 34), each written as a broken
 * copy of this example's dialect (fixtures/duckdb-classic-mistakes.ts), and the kit check that
 * catches it. The fence contract alone passes the first three: every refusal still holds there.
 */
const [streamFails, crashAnywhere] = ATOMICITY_CHECKS.map((check) => check.name) as [string, string];
const [, , , , zombie, holder] = FENCE_CHECKS.map((check) => check.name);

const copyOf = (broken: (path: string, table: string) => MarkerDialect) =>
  factory(
    async (endpoint, path, faults) =>
      new MarkerTarget(broken(path, endpoint.table), {
        identity: 'duckdb:conformance',
        fenceLocation: DUCKDB_FENCE_LOCATION,
        faults,
      }),
  );

async function failedChecks(broken: (path: string, table: string) => MarkerDialect): Promise<string[]> {
  const results = await checkFenceContract(copyOf(broken));
  return results.filter((result) => !result.passed).map((result) => result.name);
}

describe('the connector kit catches the classic mistakes, each a broken copy of the DuckDB example', () => {
  it('passes the example itself on every check, atomicity included', async () => {
    const certified = factory((endpoint, _path, faults) =>
      connector.target!.open(endpoint, { faults, readOnly: false }),
    );
    expect((await checkFenceContract(certified)).filter((result) => !result.passed)).toEqual([]);
  });

  it('a fence committed on a second connection: the failed stream leaves the fence committed, a crash before COMMIT too', async () => {
    expect(await failedChecks(secondConnectionFence)).toEqual([streamFails, crashAnywhere]);
  });

  it('rows inserted in autocommit chunks before the fence transaction: a row of the failed stream stays', async () => {
    expect(await failedChecks(autocommitChunks)).toEqual([streamFails, crashAnywhere]);
  });

  it('data and fence as two transactions inside one commit(): a crash between the two COMMITs leaves rows the fence denies', async () => {
    expect(await failedChecks(twoTransactionsInOneCommit)).toEqual([crashAnywhere]);
  });

  it('a fence ignoring epoch and holder: the zombie commits and another holder takes an equal epoch', async () => {
    expect(await failedChecks(epochBlindFence)).toEqual(expect.arrayContaining([zombie, holder]));
  });
});

describe('what the kit needs from the factory', () => {
  it('without afterDriverStatement wired, two transactions inside one commit() pass: no fault point lies between the COMMITs', async () => {
    const unprobed = copyOf(twoTransactionsInOneCommit);
    const results = await checkFenceContract((options) =>
      unprobed(options && { ...options, afterDriverStatement: async () => undefined }),
    );
    expect(results.filter((result) => !result.passed)).toEqual([]);
  });
});
