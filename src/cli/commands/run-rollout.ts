import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DponeError, ERROR_CODES } from '../../contracts/errors.ts';
import type { JournalDescription } from '../../core/deployment-policy.ts';
import { openShadowJournal, shadowJournalPath } from '../shadow-journal-url.ts';
import type {
  DeploymentChoice,
  DeploymentMode,
  DeploymentPolicy,
} from '../../contracts/deployment-policy.ts';
import { deploymentModeFor } from '../../contracts/deployment-policy.ts';
import { resolveRouteId } from '../route-names.ts';
import type { Workload } from '../../contracts/workload.ts';
import type { DeploymentPolicyDecision } from '../../core/deployment-policy.ts';
import type { RolloutDecision } from '../../core/rollout.ts';
import { decideRollout } from '../../core/rollout.ts';
import type { CliIO } from '../command.ts';
import { deploymentPolicyLocation, readDeploymentPolicy } from '../deployment-policy-file.ts';

/** The run's rollout mode, known before any I/O; `decide` composes it with the trust decision. */
export type ResolvedRollout =
  | {
      readonly mode: Exclude<DeploymentMode, 'enforced'>;
      readonly policy: DeploymentPolicy;
      readonly decide: (trust: DeploymentPolicyDecision | null) => RolloutDecision;
    }
  | {
      readonly mode: 'enforced' | 'unmanaged';
      readonly policy: DeploymentPolicy | null;
      readonly decide: (trust: DeploymentPolicyDecision | null) => RolloutDecision;
    };

/**
 * Reads the deployment policy (--deployment-policy, $DPONE_DEPLOYMENT_POLICY, else
 * dpone-deployment.yaml beside the workload) and picks the workload's mode: its own entry, its
 * route's, else the file's default (legacy). No file at all: `unmanaged` (docs/rollout.md).
 */
export async function resolveRollout(
  workload: Workload,
  flag: string | undefined,
  io: CliIO,
): Promise<ResolvedRollout> {
  const location = deploymentPolicyLocation(flag, io.env, io.cwd, dirname(workload.file));
  const policy = await readDeploymentPolicy(location);
  if (policy === null)
    return { mode: 'unmanaged', policy: null, decide: (trust) => decideRollout(null, null, trust) };
  const route = resolveRouteId(workload.route, workload.source.url)?.id ?? workload.route;
  const choice: DeploymentChoice = deploymentModeFor(policy, {
    route,
    workloadId: workload.identity.workload_id,
  });
  const decide = (trust: DeploymentPolicyDecision | null) => decideRollout(policy, choice, trust);
  return choice.mode === 'enforced'
    ? { mode: 'enforced', policy, decide }
    : { mode: choice.mode, policy, decide };
}

/**
 * Enforcement cannot take over an operation the plain write already began: it has no journal entry
 * and no fence, so the protocol would write it again. When the journal database holds shadow
 * attempts of this operation that wrote or may have written, the enforced run fails closed.
 */
export async function refuseShadowWritten(
  operationId: string,
  journal: { readonly description: JournalDescription; readonly url: string; readonly base: string },
  io: CliIO,
): Promise<void> {
  // A file journal's shadow records live in a file of their own: none there, no shadow attempt was recorded.
  const shadowFile = shadowJournalPath(journal.url, journal.base);
  if (shadowFile === null || !existsSync(shadowFile)) return;
  await using shadow = await openShadowJournal(
    { journal: journal.description, url: journal.url, base: journal.base, timeoutMs: 2000 },
    (line) => io.stderr.write(`${line.replace(': the write goes on unrecorded', '')}\n`),
    false,
    io.env,
  );
  const written = (await shadow?.attempts(null))?.find(
    (attempt) => attempt.operationId === operationId && attempt.outcome !== 'failed',
  );
  if (written)
    throw new DponeError(
      ERROR_CODES.ENFORCEMENT_UNAVAILABLE,
      `operation ${operationId} was already written by a plain (${written.outcome ?? 'unfinished'}) write in shadow mode (attempt ${written.tryNumber}): enforcement has no journal entry or fence to prove it, so it does not take the operation over; finish it in shadow mode and flip between operations (docs/rollout.md)`,
      { operationId },
    );
}
