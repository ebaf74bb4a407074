import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The pin list airflow-venv.sh installs; its digest names the cached environment. */
export const AIRFLOW_PINS = fileURLToPath(new URL('./constraints-py3.11.txt', import.meta.url));
/** The one-line command that provisions the environment (README, UNVERIFIED reasons). */
export const PROVISION_COMMAND = 'bash harness/env/airflow/airflow-venv.sh';
/** Points at a provisioned environment folder instead of the default cache location. */
export const AIRFLOW_VENV_ENV = 'DPONE_AIRFLOW_VENV';
const STAMP = '.dpone-provisioned';

/** A provisioned Airflow environment (see airflow-venv.sh). */
export interface AirflowVenv {
  readonly dir: string;
  readonly python: string;
  readonly airflow: string;
  /** apache-airflow's pinned version, e.g. "3.3.2". */
  readonly version: string;
  /** The Kubernetes provider's pinned version. */
  readonly kubernetesProvider: string;
  /** A migrated, empty metadata database (SQLite) to copy per run. */
  readonly metadataTemplate: string;
}

export type AirflowVenvResult =
  | { readonly status: 'found'; readonly venv: AirflowVenv }
  | { readonly status: 'missing'; readonly reason: string };

function pinned(pins: string, name: string): string {
  return new RegExp(`^${name}==(\\S+)$`, 'm').exec(pins)?.[1] ?? 'unknown';
}

function pinsDigest(pins: string): string {
  return createHash('sha256').update(pins).digest('hex').slice(0, 12);
}

/** The folder airflow-venv.sh builds for the current pin list (same name, same digest). */
export function defaultVenvDir(env: NodeJS.ProcessEnv = process.env): string {
  const pins = readFileSync(AIRFLOW_PINS, 'utf8');
  const cache = env.DPONE_AIRFLOW_CACHE || join(env.HOME || homedir(), '.cache', 'dpone-airflow');
  return join(cache, `airflow-${pinned(pins, 'apache-airflow')}-py3.11-${pinsDigest(pins)}`);
}

function stampOf(dir: string): string | null {
  try {
    return readFileSync(join(dir, STAMP), 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * Finds the provisioned environment: $DPONE_AIRFLOW_VENV, else the default cache folder of the
 * current pin list. Missing, half-built (no stamp) or built from another pin list gives the reason and the command
 * to run.
 */
export function findAirflowVenv(env: NodeJS.ProcessEnv = process.env): AirflowVenvResult {
  const dir = env[AIRFLOW_VENV_ENV] || defaultVenvDir(env);
  const pins = readFileSync(AIRFLOW_PINS, 'utf8');
  const stamp = stampOf(dir);
  if (stamp === null || !existsSync(join(dir, 'bin', 'airflow'))) {
    return {
      status: 'missing',
      reason: `no provisioned Airflow environment at ${dir} (run: ${PROVISION_COMMAND})`,
    };
  }
  if (stamp !== pinsDigest(pins)) {
    return {
      status: 'missing',
      reason: `the Airflow environment at ${dir} was built from another pin list (run: ${PROVISION_COMMAND})`,
    };
  }
  return {
    status: 'found',
    venv: {
      dir,
      python: join(dir, 'bin', 'python'),
      airflow: join(dir, 'bin', 'airflow'),
      version: pinned(pins, 'apache-airflow'),
      kubernetesProvider: pinned(pins, 'apache-airflow-providers-cncf-kubernetes'),
      metadataTemplate: join(dir, 'dpone-metadata.db'),
    },
  };
}
