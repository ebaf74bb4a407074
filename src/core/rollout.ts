import type { DeploymentChoice, DeploymentMode, DeploymentPolicy } from '../contracts/deployment-policy.ts';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { DeploymentPolicyDecision, ProtectionMode } from './deployment-policy.ts';
import { LEGACY_CLAIM } from './deployment-policy.ts';

/**
 * How one run is carried out, composing the deployment policy (which mode the team asked for) with
 * the trust policy (whether the route is certified for the running code, on a durable journal).
 * Enforcement needs both; `unmanaged` is a run no deployment policy governs: the protocol runs as
 * the certification harness drives it, and no protection is claimed (nobody opted in).
 */
export type RolloutMode = DeploymentMode | 'unmanaged';

/** What a run's output and its journal record say about the policy that governed it. */
export interface DeploymentRecord {
  readonly mode: RolloutMode;
  /** The deployment the policy file names (null: no policy). */
  readonly deployment: string | null;
  readonly policy_file: string | null;
  readonly policy_digest: string | null;
  /** The policy entry that chose the mode (`workloads.<id>`, `routes.<id>`, `default`). */
  readonly entry: string | null;
}

export interface RolloutDecision {
  readonly record: DeploymentRecord;
  readonly protection: ProtectionMode;
  readonly reason: string;
}

/** Why the trust policy would not enforce, without the legacy claim its reason ends with. */
export function trustProblem(trust: DeploymentPolicyDecision): string {
  return trust.reason.endsWith(LEGACY_CLAIM) ? trust.reason.slice(0, -LEGACY_CLAIM.length) : trust.reason;
}

/**
 * Decides the run. `trust` is needed only for `enforced` and `unmanaged` (null otherwise). Throws
 * DPONE_ENFORCEMENT_UNAVAILABLE when the policy asks for enforcement the route cannot give: the
 * run fails closed, naming what is missing, and never runs a weaker mode in its place.
 */
export function decideRollout(
  policy: DeploymentPolicy | null,
  choice: DeploymentChoice | null,
  trust: DeploymentPolicyDecision | null,
): RolloutDecision {
  if (policy === null || choice === null) {
    const record = {
      mode: 'unmanaged',
      deployment: null,
      policy_file: null,
      policy_digest: null,
      entry: null,
    } as const;
    const certified = trust?.mode === 'enforced';
    return {
      record,
      protection: 'legacy',
      reason: certified
        ? `${trust.reason}; but no deployment policy opts this workload into enforcement (docs/rollout.md)${LEGACY_CLAIM}`
        : (trust?.reason ?? `no deployment policy${LEGACY_CLAIM}`),
    };
  }
  const record: DeploymentRecord = {
    mode: choice.mode,
    deployment: policy.deployment,
    policy_file: policy.file,
    policy_digest: policy.digest,
    entry: choice.entry,
  };
  const governed = `deployment policy ${policy.file} (${choice.entry}: ${choice.mode})`;
  if (choice.mode !== 'enforced')
    return {
      record,
      protection: 'legacy',
      reason: `${governed}: the workload's plain write, no journal protocol and no fence${choice.mode === 'shadow' ? ', attempts shadow-recorded' : ''}${LEGACY_CLAIM}`,
    };
  if (trust === null || trust.mode !== 'enforced')
    throw new DponeError(
      ERROR_CODES.ENFORCEMENT_UNAVAILABLE,
      `${governed} asks for enforcement, but ${trust === null ? 'no trust decision was made' : trustProblem(trust)}: nothing ran`,
      { field: choice.entry },
    );
  return { record, protection: 'enforced', reason: `${governed}: ${trust.reason}` };
}
