import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findLocalBinaries } from './harness/env/local-binaries.ts';
import { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import {
  faketimeMissing as missing,
  killedWhileParked,
  stopWorkers,
} from '../../src/cli/commands/clock-skew.test-support.ts';
import {
  EXPECTED_ROWS,
  dpone,
  exampleCopy,
  targetCounts,
} from '../../src/cli/commands/example-workload.test-support.ts';

/**
 * Issue 30's case 1 on the PostgreSQL journal, with real processes and the real libfaketime: the
 * lease is written by the server's clock, so a holder a year ahead leaves nothing a retry waits a
 * year for (the embedded file journal's cases: src/cli/commands/run-clock-skew.test.ts). Without
 * libfaketime or PostgreSQL binaries it is skipped (the embedded cases say UNVERIFIED).
 */
afterEach(stopWorkers);

const postgres = findLocalBinaries().postgresBin;
describe.skipIf(missing || postgres === null)('clock skew on the PostgreSQL journal (server clock)', () => {
  let cluster: LocalPostgresCluster;
  /** A client of the cluster's `database`, connected. */
  const connected = async (database: string) => {
    const { host, port, user, password } = cluster;
    const client = new pg.Client({ host, port, user, password, database });
    await client.connect();
    return client;
  };
  beforeAll(async () => {
    cluster = await LocalPostgresCluster.start({ bin: postgres! });
  });
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  });

  it('case 1: a year-ahead holder’s lease is the server’s now + TTL, and a normal retry completes once the TTL is over', async () => {
    const example = exampleCopy();
    const short = example.variant('short-ttl.yaml', (text) =>
      text.replace('lease_ttl_ms: 30000', 'lease_ttl_ms: 1000'),
    );
    const admin = await connected('postgres');
    await admin.query('CREATE DATABASE clock_case1');
    await admin.end();
    const journal = { url: cluster.url('clock_case1'), password: cluster.password };
    await killedWhileParked(example, 'pod-ahead', {
      offset: '+365d',
      stop: 'cas:PREPARED->COMMITTING:after',
      journal,
      workload: short,
    });
    const client = await connected('clock_case1');
    const { rows } = await client.query(
      'SELECT lease_expires_at_ms, updated_at_ms FROM dpone_commit_journal',
    );
    await client.end();
    // Written by the server's clock: the holder's year ahead does not show.
    expect(Number(rows[0].lease_expires_at_ms) - Date.now()).toBeLessThan(60_000);
    const env = { DPONE_JOURNAL_PASSWORD: cluster.password };
    const args = ['run', '--workload', short, '--journal', journal.url, '--json'];
    let retry = await dpone(args, { cwd: example.dir, env });
    for (
      let tries = 1;
      retry.exitCode === EXIT_CODES.DPONE_TARGET_COMMIT_CAS_CONFLICT && tries < 20;
      tries++
    ) {
      await new Promise((done) => setTimeout(done, 250));
      retry = await dpone(args, { cwd: example.dir, env });
    }
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });
});
