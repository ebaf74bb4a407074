import { describe, expect, it } from 'vitest';
import type { DeploymentPolicy } from '../contracts/deployment-policy.ts';
import { deploymentModeFor } from '../contracts/deployment-policy.ts';
import { isDponeError } from '../contracts/errors.ts';
import type { DeploymentPolicyDecision } from './deployment-policy.ts';
import { LEGACY_CLAIM } from './deployment-policy.ts';
import { decideRollout } from './rollout.ts';

/** Route ids are only keys to the policy: alpha enforced, beta shadow, gamma not listed. */
const POLICY: DeploymentPolicy = {
  file: '/etc/dpone/dpone-deployment.yaml',
  digest: `sha256:${'d'.repeat(64)}`,
  deployment: 'prod',
  defaultMode: 'legacy',
  routes: { 'alpha-to-alpha': 'enforced', 'beta-to-beta': 'shadow' },
  workloads: { orders: 'legacy' },
  shadowTimeoutMs: 2000,
};

const trusted: DeploymentPolicyDecision = {
  mode: 'enforced',
  route: 'alpha-to-alpha',
  connector_version: null,
  reason: 'route alpha-to-alpha is certified by record abc… signed by release',
  certification: { record: 'r', evidence_digest: 'e', certified_at: 't', signer: 'release' },
};
const untrusted: DeploymentPolicyDecision = {
  ...trusted,
  mode: 'legacy',
  reason: `no certification record in /records${LEGACY_CLAIM}`,
  certification: null,
};

describe('deployment mode: the workload entry, then the route, then the default', () => {
  it('picks by precedence', () => {
    expect(deploymentModeFor(POLICY, { route: 'alpha-to-alpha', workloadId: 'orders' })).toEqual({
      mode: 'legacy',
      entry: 'workloads.orders',
    });
    expect(deploymentModeFor(POLICY, { route: 'alpha-to-alpha', workloadId: 'x' }).mode).toBe('enforced');
    expect(deploymentModeFor(POLICY, { route: 'gamma-to-gamma', workloadId: 'x' })).toEqual({
      mode: 'legacy',
      entry: 'default',
    });
  });
});

describe('decideRollout: enforcement needs the policy AND the trust decision', () => {
  const enforced = deploymentModeFor(POLICY, { route: 'alpha-to-alpha', workloadId: 'x' });

  it('enforced with a trusted record: protection enforced, recorded with the policy digest', () => {
    const decision = decideRollout(POLICY, enforced, trusted);
    expect(decision.protection).toBe('enforced');
    expect(decision.record).toMatchObject({ mode: 'enforced', policy_digest: POLICY.digest });
  });

  it('enforced without one: fails closed with exit 17, naming what is missing, in one line', () => {
    let thrown: unknown;
    try {
      decideRollout(POLICY, enforced, untrusted);
    } catch (error) {
      thrown = error;
    }
    expect(isDponeError(thrown, 'DPONE_ENFORCEMENT_UNAVAILABLE')).toBe(true);
    const message = (thrown as Error).message;
    expect(message).toMatch(/asks for enforcement, but no certification record in \/records: nothing ran$/);
    expect(message).not.toContain(LEGACY_CLAIM);
  });

  it('legacy and shadow never claim protection, whatever the trust decision', () => {
    for (const route of ['gamma-to-gamma', 'beta-to-beta'])
      expect(
        decideRollout(POLICY, deploymentModeFor(POLICY, { route, workloadId: 'x' }), trusted).protection,
      ).toBe('legacy');
  });

  it('no policy: unmanaged, and a certified route is still not claimed (nobody opted in)', () => {
    const decision = decideRollout(null, null, trusted);
    expect(decision.record.mode).toBe('unmanaged');
    expect(decision.protection).toBe('legacy');
    expect(decision.reason).toMatch(/no deployment policy opts this workload into enforcement/);
  });
});
