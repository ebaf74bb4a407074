/**
 * The deployment policy (spec "Migration and rollout", steps 6–7): which rollout mode governs a
 * workload in one deployment. `legacy` (the default) is the plain write with no journal and no
 * fence; `shadow` is that same write plus a secondary record of every attempt and of what
 * enforcement would have decided; `enforced` is the full target-commit protocol, and only where a
 * trusted certification and a durable journal exist (otherwise the run fails closed).
 */

export type DeploymentMode = 'legacy' | 'shadow' | 'enforced';

export const DEPLOYMENT_MODES: readonly DeploymentMode[] = ['legacy', 'shadow', 'enforced'];

/** Version of the file (schemas/deployment-policy.v1.json). */
export const DEPLOYMENT_POLICY_SCHEMA = 'dpone.deployment-policy/v1';

/** The variable naming a deployment policy file when no flag does. */
export const DEPLOYMENT_POLICY_ENV = 'DPONE_DEPLOYMENT_POLICY';

/** The file looked for beside the workload when neither the flag nor the variable names one. */
export const DEPLOYMENT_POLICY_FILE_NAME = 'dpone-deployment.yaml';

/** How long a shadow-journal call may hold the legacy write back, unless the policy says otherwise. */
export const DEFAULT_SHADOW_TIMEOUT_MS = 2000;

export interface DeploymentPolicy {
  /** Absolute path of the file, for messages. */
  readonly file: string;
  /** sha256 of the file's bytes (`sha256:` + 64 hex): recorded with every run it governs. */
  readonly digest: string;
  /** The deployment this file governs (a name of the team's choosing). */
  readonly deployment: string;
  /** The mode of a workload no entry names. */
  readonly defaultMode: DeploymentMode;
  /** Route id → mode. */
  readonly routes: Readonly<Record<string, DeploymentMode>>;
  /** Workload id (identity.workload_id) → mode; wins over its route's entry. */
  readonly workloads: Readonly<Record<string, DeploymentMode>>;
  /** Bound on each shadow-journal call, in milliseconds. */
  readonly shadowTimeoutMs: number;
}

/** The mode one workload runs under, and which entry of the policy chose it. */
export interface DeploymentChoice {
  readonly mode: DeploymentMode;
  /** `workloads.<id>`, `routes.<id>` or `default`. */
  readonly entry: string;
}

/** A workload's own entry wins; then its route's; then the file's default. */
export function deploymentModeFor(
  policy: DeploymentPolicy,
  workload: { readonly route: string; readonly workloadId: string },
): DeploymentChoice {
  if (Object.hasOwn(policy.workloads, workload.workloadId))
    return { mode: policy.workloads[workload.workloadId]!, entry: `workloads.${workload.workloadId}` };
  if (Object.hasOwn(policy.routes, workload.route))
    return { mode: policy.routes[workload.route]!, entry: `routes.${workload.route}` };
  return { mode: policy.defaultMode, entry: 'default' };
}
