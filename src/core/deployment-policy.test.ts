import { describe, expect, it } from 'vitest';
import type { CertificationPredicate } from '../contracts/certification.ts';
import {
  CERTIFICATION_PREDICATE,
  CERTIFICATION_SCHEMA,
  mandatoryAcceptanceItems,
} from '../contracts/certification.ts';
import type { TrustPolicy } from '../contracts/trust-policy.ts';
import type { PolicyInput, RecordCandidate } from './deployment-policy.ts';
import { decideDeploymentPolicy } from './deployment-policy.ts';

const D = (c: string) => `sha256:${c.repeat(64)}`;
/** What a route into an engine with items of its own and plain writes must hold (the caller builds it). */
const REQUIRED = mandatoryAcceptanceItems({ targetItems: ['engine-item'], plainWrites: true });
/** Engine, route and journal names are only data to the decision: any well-formed ones do. */
const CODE = [
  { role: 'source' as const, name: 'alpha', digest: D('1') },
  { role: 'target' as const, name: 'alpha', digest: D('1') },
];
const signer = { kind: 'key' as const, name: 'release', routes: ['*'], publicKeyPem: '' };
const policy: TrustPolicy = {
  file: '/p.yaml',
  recordsDir: '/records',
  signers: [signer],
  revoked: [],
  trustedRoot: null,
};

const predicate: CertificationPredicate = {
  schema: CERTIFICATION_SCHEMA,
  route: 'alpha-to-alpha',
  review_only: false,
  connector_version: 'v',
  connectors: CODE,
  runtime: { version: '0.1.0', digest: D('2') },
  harness: { digest: D('3') },
  suite: { name: 'full', digest: D('4'), scenarios: [] },
  evidence: { digest: D('5'), run_id: 'r', seed: 42, cells: 10 },
  engines: {},
  git: null,
  ran_by: { kind: 'local', where: 'h', workflow: null },
  certified_at: '2026-12-01T00:00:00.000Z',
  acceptance: REQUIRED.map((item) => ({
    item,
    status: 'PASS',
    cells: 1,
    decided_by: [],
  })),
};
const verified: RecordCandidate = {
  file: 'a.json',
  digest: D('6'),
  problem: null,
  signer,
  predicateType: CERTIFICATION_PREDICATE,
  predicate,
  subjects: [],
};

function input(overrides: Partial<PolicyInput> = {}): PolicyInput {
  return {
    route: 'alpha-to-alpha',
    connectorVersion: 'v',
    policy,
    lookedFor: 'looked for /w/dpone-policy.yaml',
    candidates: [verified],
    running: { connectors: async () => CODE, runtime: () => D('2'), suite: () => D('4') },
    requiredItems: REQUIRED,
    journal: { kind: 'server-journal', location: 'db', durable: true, reason: 'a server' },
    ...overrides,
  };
}

describe('deployment policy decision (pure)', () => {
  it('enforces a verified record that binds the running code, on a durable journal', async () => {
    const decision = await decideDeploymentPolicy(input());
    expect(decision).toMatchObject({
      mode: 'enforced',
      certification: { record: D('6'), signer: 'release' },
    });
  });

  it('is legacy without a policy, without records, on a journal that dies with the worker, or fenceless', async () => {
    expect((await decideDeploymentPolicy(input({ policy: null }))).reason).toMatch(
      /^no trust policy \(looked for/,
    );
    expect((await decideDeploymentPolicy(input({ candidates: [] }))).reason).toMatch(
      /no certification record in \/records/,
    );
    const journal = { kind: 'file-journal', location: 'f', durable: false, reason: 'a local file' };
    expect((await decideDeploymentPolicy(input({ journal }))).reason).toMatch(
      /journal \(file-journal\) is not durable: a local file/,
    );
    expect((await decideDeploymentPolicy(input({ fenceless: true }))).reason).toMatch(/without a fence/);
  });

  it('computes the runtime and suite digests only for a record that got that far', async () => {
    let computed = 0;
    const running = {
      connectors: async () => CODE,
      runtime: () => (computed++, D('2')),
      suite: () => (computed++, D('4')),
    };
    await decideDeploymentPolicy(
      input({ running, candidates: [{ ...verified, problem: 'unsigned', signer: null }] }),
    );
    expect(computed).toBe(0);
    await decideDeploymentPolicy(input({ running }));
    expect(computed).toBe(2);
  });

  it('requires the items the caller lists, naming the missing ones in its order', async () => {
    const items = { targetItems: ['x-item', 'y-item'], plainWrites: true };
    expect(mandatoryAcceptanceItems(items).slice(-3)).toEqual(['x-item', 'y-item', 'shadow-report-exact']);
    expect(mandatoryAcceptanceItems({ ...items, plainWriteItem: 'before' }).slice(-3)).toEqual([
      'shadow-report-exact',
      'x-item',
      'y-item',
    ]);
    expect(mandatoryAcceptanceItems({ targetItems: [], plainWrites: false }).at(-1)).toBe('run-verdict');
    expect(
      (await decideDeploymentPolicy(input({ requiredItems: [...REQUIRED, 'y-item', 'x-item'] }))).reason,
    ).toMatch(/not PASS by name: y-item, x-item: legacy/);
  });

  it('a record with a failing item, or a runtime that changed, is legacy naming it', async () => {
    const failing = {
      ...predicate,
      acceptance: predicate.acceptance.map((e) => (e.item === 'plan' ? { ...e, status: 'FAIL' } : e)),
    };
    expect(
      (await decideDeploymentPolicy(input({ candidates: [{ ...verified, predicate: failing }] }))).reason,
    ).toMatch(/not PASS by name: plan/);
    const running = { connectors: async () => CODE, runtime: () => D('9'), suite: () => D('4') };
    expect((await decideDeploymentPolicy(input({ running }))).reason).toMatch(
      /runtime digest differs: record 222222222222…, running 999999999999…/,
    );
  });
});
