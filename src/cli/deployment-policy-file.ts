import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { invalidInput } from '../contracts/errors.ts';
import { resolveRouteId } from './route-names.ts';
import { exampleRouteIds, serverJournalEngine } from './engine-roles.ts';
import type { DeploymentMode, DeploymentPolicy } from '../contracts/deployment-policy.ts';
import {
  DEFAULT_SHADOW_TIMEOUT_MS,
  DEPLOYMENT_MODES,
  DEPLOYMENT_POLICY_ENV,
  DEPLOYMENT_POLICY_FILE_NAME,
  DEPLOYMENT_POLICY_SCHEMA,
} from '../contracts/deployment-policy.ts';
import { MAX_BYTES, readBoundedText } from './bounded-file.ts';

/** The flag naming a deployment policy file (`--policy` names the trust policy). */
export const DEPLOYMENT_POLICY_FLAG = '--deployment-policy';

/**
 * Where the deployment policy is, in this order: `--deployment-policy FILE`,
 * `$DPONE_DEPLOYMENT_POLICY`, else `dpone-deployment.yaml` in the workload's folder (never the
 * working folder: the mode must not change with where a process starts).
 */
export function deploymentPolicyLocation(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
  workloadDir: string,
): { readonly file: string; readonly source: string } {
  if (flag !== undefined) return { file: resolve(cwd, flag), source: DEPLOYMENT_POLICY_FLAG };
  const named = env[DEPLOYMENT_POLICY_ENV];
  if (named) return { file: resolve(cwd, named), source: DEPLOYMENT_POLICY_ENV };
  return { file: resolve(workloadDir, DEPLOYMENT_POLICY_FILE_NAME), source: 'beside the workload' };
}

const KEYS = new Set(['schema', 'deployment', 'default', 'routes', 'workloads', 'shadow']);
type Plain = Record<string, unknown>;
const isMap = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function mode(value: unknown, field: string): DeploymentMode {
  if (typeof value !== 'string' || !(DEPLOYMENT_MODES as readonly string[]).includes(value))
    throw invalidInput(`${field} must be one of ${DEPLOYMENT_MODES.join(', ')}`, { field });
  return value as DeploymentMode;
}

function modes(value: unknown, field: string, key: (name: string) => string): Record<string, DeploymentMode> {
  if (value === undefined) return {};
  if (!isMap(value)) throw invalidInput(`${field} must be a map of name to mode`, { field });
  const out: Record<string, DeploymentMode> = {};
  for (const [name, entry] of Object.entries(value)) {
    const id = key(name);
    if (Object.hasOwn(out, id))
      throw invalidInput(`${field} names ${id} twice (as an alias and by its id)`, {
        field: `${field}.${name}`,
      });
    out[id] = mode(entry, `${field}.${name}`);
  }
  return out;
}

function shadowTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_SHADOW_TIMEOUT_MS;
  if (!isMap(value)) throw invalidInput('shadow must be a map (timeout_ms)', { field: 'shadow' });
  for (const key of Object.keys(value))
    if (key !== 'timeout_ms')
      throw invalidInput(`shadow.${key} is not a deployment policy key (known: timeout_ms)`, {
        field: `shadow.${key}`,
      });
  const ms = value.timeout_ms ?? DEFAULT_SHADOW_TIMEOUT_MS;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1 || ms > 60000)
    throw invalidInput('shadow.timeout_ms must be an integer from 1 to 60000', {
      field: 'shadow.timeout_ms',
    });
  return ms;
}

/** Validates a parsed deployment policy; `digest` is the file's. */
export function deploymentPolicyFromValue(value: unknown, file: string, digest: string): DeploymentPolicy {
  if (!isMap(value))
    throw invalidInput('a deployment policy is a map (deployment, default, routes, workloads)', {
      field: '(root)',
    });
  for (const key of Object.keys(value))
    if (!KEYS.has(key))
      throw invalidInput(`${key} is not a deployment policy key (known: ${[...KEYS].join(', ')})`, {
        field: key,
      });
  if (value.schema !== undefined && value.schema !== DEPLOYMENT_POLICY_SCHEMA)
    throw invalidInput(`schema must be ${DEPLOYMENT_POLICY_SCHEMA}`, { field: 'schema' });
  if (typeof value.deployment !== 'string' || value.deployment.trim() === '')
    throw invalidInput('deployment must name the deployment this file governs', { field: 'deployment' });
  return {
    file,
    digest,
    deployment: value.deployment,
    defaultMode: value.default === undefined ? 'legacy' : mode(value.default, 'default'),
    routes: modes(value.routes, 'routes', (name) => {
      const id = resolveRouteId(name)?.id;
      // A misspelt route would never match, silently leaving its workloads in the default mode.
      if (id === undefined)
        throw invalidInput(
          `routes.${name} is not a route id (SOURCE-to-TARGET, e.g. ${exampleRouteIds()[1]}, or an alias such as ${serverJournalEngine()[0]})`,
          {
            field: `routes.${name}`,
          },
        );
      return id;
    }),
    workloads: modes(value.workloads, 'workloads', (name) => name),
    shadowTimeoutMs: shadowTimeout(value.shadow),
  };
}

/**
 * Reads the deployment policy: null when none is named and none lies beside the workload (the run
 * is then unmanaged: see docs/rollout.md); a named file that is missing, or a file that is not a
 * valid policy, is bad input (exit 2) naming file:line:column and the key.
 */
export async function readDeploymentPolicy(location: {
  readonly file: string;
  readonly source: string;
}): Promise<DeploymentPolicy | null> {
  const { file, source } = location;
  if (!existsSync(file)) {
    if (source === 'beside the workload') return null;
    throw invalidInput(`the deployment policy ${file} (named by ${source}) does not exist`, {
      field: source,
    });
  }
  const content = await readBoundedText(file, {
    what: 'deployment policy',
    maxBytes: MAX_BYTES.workload,
    fields: { field: source },
  });
  const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
  const { parseYaml } = await import('./workload-yaml.ts');
  return parseYaml(content, file, (value) => deploymentPolicyFromValue(value, file, digest));
}
