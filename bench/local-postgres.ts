import { findLocalBinaries } from '../connectors/postgres/harness/env/local-binaries.ts';
import { LocalPostgresCluster } from '../connectors/postgres/harness/env/postgres-cluster.ts';
import type { OverheadRow } from './protocol-overhead.ts';
import { postgresOverhead } from './postgres-overhead.ts';

export interface LocalPostgresBench {
  readonly journalUrl: string;
  readonly password: string;
  protocolOverhead(options: { repeats: number; sizes: readonly number[] }): Promise<OverheadRow[]>;
}

/**
 * Runs `body` against a throw-away local PostgreSQL cluster. Without the binaries the PostgreSQL
 * figures are UNVERIFIED with the reason; they are never invented.
 */
export async function withLocalPostgres<T>(
  body: (pg: LocalPostgresBench) => Promise<T>,
): Promise<{ value?: T; unverified?: string }> {
  const binaries = findLocalBinaries();
  if (binaries.postgresBin === null) return { unverified: binaries.missing.join('; ') };
  await using cluster = await LocalPostgresCluster.start({ bin: binaries.postgresBin });
  process.env.DPONE_JOURNAL_PASSWORD = cluster.password;
  process.env.DPONE_BENCH_PG_PASSWORD = cluster.password;
  const url = cluster.url('postgres');
  return {
    value: await body({
      journalUrl: url,
      password: cluster.password,
      protocolOverhead: (options) => postgresOverhead(url, cluster.password, options),
    }),
  };
}
