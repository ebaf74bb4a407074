import { execFile } from 'node:child_process';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findLocalBinaries } from '../../../connectors/postgres/harness/env/local-binaries.ts';
import { LocalPostgresCluster } from '../../../connectors/postgres/harness/env/postgres-cluster.ts';
import type { AirflowVenv } from './airflow-venv.ts';

const run = promisify(execFile);
const DATABASE = 'airflow';

/** Airflow's metadata database for one run, and the settings that point Airflow at it. */
export interface AirflowMetadata extends AsyncDisposable {
  /** e.g. "postgresql 15.14" or "sqlite". */
  readonly description: string;
  /** AIRFLOW__DATABASE__SQL_ALCHEMY_CONN (never a password) and, for PostgreSQL, PGPASSWORD. */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * A throw-away PostgreSQL cluster when this machine has the server binaries (Airflow's API
 * server, scheduler and task supervisors write to it concurrently, which SQLite serialises with
 * "database is locked"), migrated with `airflow db migrate`; otherwise a copy of the environment's
 * migrated SQLite database. The password reaches Airflow as PGPASSWORD (libpq), not in the URL.
 */
export async function startMetadata(
  venv: AirflowVenv,
  home: string,
  env: NodeJS.ProcessEnv,
  baseEnv: Readonly<Record<string, string>>,
): Promise<AirflowMetadata> {
  const bin = findLocalBinaries(env).postgresBin;
  if (bin === null) {
    await copyFile(venv.metadataTemplate, join(home, 'airflow.db'));
    return {
      description: 'sqlite',
      env: { AIRFLOW__DATABASE__SQL_ALCHEMY_CONN: `sqlite:///${join(home, 'airflow.db')}` },
      async [Symbol.asyncDispose]() {},
    };
  }
  const cluster = await LocalPostgresCluster.start({ bin });
  try {
    const [shown] = await cluster.query(['SHOW server_version', `CREATE DATABASE ${DATABASE}`]);
    const version = (shown!.rows[0] as { server_version: string }).server_version;
    const metadataEnv = {
      AIRFLOW__DATABASE__SQL_ALCHEMY_CONN: `postgresql+psycopg2://${cluster.user}@${cluster.host}:${cluster.port}/${DATABASE}`,
      PGPASSWORD: cluster.password,
    };
    await run(venv.airflow, ['db', 'migrate'], { env: { ...baseEnv, ...metadataEnv }, cwd: home });
    return {
      description: `postgresql ${version}`,
      env: metadataEnv,
      [Symbol.asyncDispose]: () => cluster[Symbol.asyncDispose](),
    };
  } catch (error) {
    await cluster[Symbol.asyncDispose]();
    throw error;
  }
}
