import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DeploymentPolicyDecision, JournalDescription } from '../core/deployment-policy.ts';
import { decideDeploymentPolicy } from '../core/deployment-policy.ts';

/** Where `dpone certify gate` writes and `dpone run` reads certifications, relative to the cwd. */
export const DEFAULT_CERTIFICATIONS_DIR = 'certifications';
/** Overrides the certifications directory (a deployment mounts its approved records there). */
export const CERTIFICATIONS_DIR_ENV = 'DPONE_CERTIFICATIONS_DIR';

/**
 * The connector version this runtime ships per route: what a certification must name for the
 * route to run enforced. Bump it when the route's fence or commit code changes, which voids
 * older certifications.
 */
export const ROUTE_CONNECTOR_VERSIONS: Readonly<Record<string, string>> = {
  // 2: the guard refuses an operation already committed or of another intent (issue 10).
  sqlite: 'sqlite-transactional-commit-marker/2',
  postgres: 'postgres-transactional-commit-marker/2',
  // Named now so `certify gate` can certify the route once its harness route runs; until then no
  // certification exists and every ClickHouse run says `protection: legacy`.
  clickhouse: 'clickhouse-staging-swap-generation/1',
};

export function certificationsDir(cwd: string, env: NodeJS.ProcessEnv): string {
  return resolve(cwd, env[CERTIFICATIONS_DIR_ENV] || DEFAULT_CERTIFICATIONS_DIR);
}

/**
 * Parsed contents of every `*.json` in the directory. A missing directory is no certification;
 * an unreadable or malformed file is skipped (it can only fail to certify, never certify).
 */
export async function readCertifications(dir: string): Promise<unknown[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.json')).sort();
  } catch {
    return [];
  }
  const records: unknown[] = [];
  for (const name of names) {
    try {
      records.push(JSON.parse(await readFile(join(dir, name), 'utf8')));
    } catch {
      // Not valid JSON: it certifies nothing.
    }
  }
  return records;
}

/** The deployment policy for a run of `route` on `journal`, from this working directory and environment. */
export async function deploymentPolicyFor(
  route: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  journal?: JournalDescription,
  /** The connector version the run used (a plug-in's `<name>@<version>`); default: the built-in's. */
  connectorVersion: string | null = ROUTE_CONNECTOR_VERSIONS[route] ?? null,
  /** The workload writes its target without a fence (`target.fence: none`): never enforced. */
  fenceless = false,
): Promise<DeploymentPolicyDecision> {
  if (fenceless)
    return {
      mode: 'legacy',
      route,
      connector_version: null,
      reason:
        'the target is written without a fence (target.fence: none): no outcome can be proven, so every run that began the mutation stops for an operator and no duplicate-write protection is claimed',
      certification: null,
    };
  const records = await readCertifications(certificationsDir(cwd, env));
  return decideDeploymentPolicy(records, route, connectorVersion, journal);
}
