import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { DeploymentPolicyDecision, JournalDescription } from '../core/deployment-policy.ts';
import { decideDeploymentPolicy } from '../core/deployment-policy.ts';
import { resolveRouteId } from '../contracts/route-id.ts';

/** Where `dpone certify gate` writes and `dpone run` reads certifications, relative to the cwd. */
export const DEFAULT_CERTIFICATIONS_DIR = 'certifications';
/** Overrides the certifications directory (a deployment mounts its approved records there). */
export const CERTIFICATIONS_DIR_ENV = 'DPONE_CERTIFICATIONS_DIR';

/**
 * The connector versions this runtime ships, per engine and role: what a certification must name
 * for a route to run enforced. Bump one when that connector's read, fence or commit code changes,
 * which voids the certifications of every route using it.
 */
export const CONNECTOR_VERSIONS: Readonly<
  Record<string, { readonly source?: string; readonly target?: string }>
> = {
  // target 2: the guard refuses an operation already committed or of another intent (issue 10).
  sqlite: { source: 'sqlite-source/1', target: 'sqlite-transactional-commit-marker/2' },
  postgres: { source: 'postgres-source/1', target: 'postgres-transactional-commit-marker/2' },
  mssql: { source: 'mssql-source/1', target: 'mssql-transactional-commit-marker/2' },
  clickhouse: { source: 'clickhouse-source/1', target: 'clickhouse-staging-swap-generation/1' },
};

/** A composed route's version: both connectors' (`<source>+<target>`), so a certification covers exactly that pair. */
export function composeConnectorVersion(source: string, target: string): string {
  return `${source}+${target}`;
}

/** The connector version of a route (an id or alias) this runtime ships, or null when it has no such pair. */
export function routeConnectorVersion(route: string): string | null {
  const parts = resolveRouteId(route);
  const source = parts ? CONNECTOR_VERSIONS[parts.source]?.source : undefined;
  const target = parts ? CONNECTOR_VERSIONS[parts.target]?.target : undefined;
  return source && target ? composeConnectorVersion(source, target) : null;
}

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
  connectorVersion: string | null = routeConnectorVersion(route),
  /** The workload writes its target without a fence (`target.fence: none`): never enforced. */
  fenceless = false,
): Promise<DeploymentPolicyDecision> {
  const id = resolveRouteId(route)?.id ?? route;
  if (fenceless)
    return {
      mode: 'legacy',
      route: id,
      connector_version: null,
      reason:
        'the target is written without a fence (target.fence: none): no outcome can be proven, so every run that began the mutation stops for an operator and no duplicate-write protection is claimed',
      certification: null,
    };
  const records = await readCertifications(certificationsDir(cwd, env));
  return decideDeploymentPolicy(records, id, connectorVersion, journal);
}
