import type { CertificationPredicate, ConnectorCode, InTotoSubject } from '../contracts/certification.ts';
import {
  CERTIFICATION_PREDICATE,
  CERTIFICATION_SCHEMA,
  CERTIFYING_SUITE,
} from '../contracts/certification.ts';
import type { TrustPolicy, TrustedSigner } from '../contracts/trust-policy.ts';
import { signerAllows } from '../contracts/trust-policy.ts';

/**
 * The runtime deployment policy (spec "Migration and rollout"): durable duplicate-write protection
 * is enforced, and claimed, only for a route holding a certification record that verifies against
 * the deployment's trust policy and binds exactly the code running now. Every other run keeps
 * legacy retry semantics and claims no protection, saying the first check that failed. Pure: the
 * caller reads the policy and records, verifies signatures (adapters) and computes digests.
 */

/** `enforced`: a record this deployment trusts binds the running code; `legacy`: anything else. */
export type ProtectionMode = 'enforced' | 'legacy';

/** Where a run's journal is (safe location, never credentials) and whether it outlives the worker. */
export interface JournalDescription {
  /** The engine whose journal it is (the engine's name, as its URL's scheme says), or `memory`. */
  readonly kind: string;
  readonly location: string;
  /** Whether the policy counts it durable: a server, or a file marked shared. */
  readonly durable: boolean;
  /** One sentence: why it is (not) durable. */
  readonly reason: string;
}

/** One record file as read and checked by the caller: its signature verified, or why not. */
export interface RecordCandidate {
  readonly file: string;
  /** sha256 of the signed statement (null when the file is not a record at all). */
  readonly digest: string | null;
  /** Why the record is not signed by a signer of the policy (null: `signer` verified it). */
  readonly problem: string | null;
  readonly signer: TrustedSigner | null;
  readonly predicateType: string | null;
  readonly predicate: CertificationPredicate | null;
  /** The statement's subjects (name and sha256), as signed. */
  readonly subjects: readonly InTotoSubject[];
}

/** The code running now; each digest is computed only if a record gets that far. */
export interface RunningCode {
  readonly connectors: () => Promise<readonly ConnectorCode[] | null>;
  readonly runtime: () => string;
  readonly suite: () => string;
}

export interface DeploymentPolicyDecision {
  readonly mode: ProtectionMode;
  readonly route: string;
  readonly connector_version: string | null;
  /** One sentence saying why, for the run's output. */
  readonly reason: string;
  /** The record relied on, when enforced. */
  readonly certification: {
    readonly record: string;
    readonly evidence_digest: string;
    readonly certified_at: string;
    readonly signer: string;
  } | null;
}

export interface PolicyInput {
  readonly route: string;
  readonly connectorVersion: string | null;
  /** The policy, or null with where it was looked for. */
  readonly policy: TrustPolicy | null;
  readonly lookedFor: string;
  readonly candidates: readonly RecordCandidate[];
  readonly running: RunningCode;
  /**
   * Every acceptance item a record for this route must hold, each PASS, by name, in the order a
   * refusal lists them: the caller builds them from the route's target engine
   * (contracts/certification.ts mandatoryAcceptanceItems).
   */
  readonly requiredItems: readonly string[];
  readonly journal?: JournalDescription;
  /** The workload writes its target without a fence (`target.fence: none`): never enforced. */
  readonly fenceless?: boolean;
}

/** What every legacy reason ends with; a reason without it is the check that failed. */
export const LEGACY_CLAIM = ': legacy retry semantics, no duplicate-write protection is claimed';

const short = (digest: string) => digest.replace(/^sha256:/, '').slice(0, 12);

type Check =
  { readonly step: number; readonly problem: string } | { readonly step: number; readonly problem: null };

/** Every check of one record, in order; the first that fails is its problem (step = how far it got). */
async function checkRecord(
  candidate: RecordCandidate,
  input: PolicyInput,
  policy: TrustPolicy,
): Promise<Check> {
  const fail = (step: number, problem: string): Check => ({ step, problem: `${candidate.file}: ${problem}` });
  if (candidate.problem !== null || candidate.signer === null || candidate.predicate === null)
    return fail(0, candidate.problem ?? 'not a certification record');
  const record = candidate.predicate;
  if (candidate.predicateType !== CERTIFICATION_PREDICATE || record.schema !== CERTIFICATION_SCHEMA)
    return fail(1, `a ${candidate.predicateType ?? 'statement'} is not a route certification`);
  if (record.review_only) return fail(1, 'a review-only record (written by certify gate) certifies nothing');
  if (record.route !== input.route)
    return fail(2, `the record certifies route ${record.route}, not ${input.route}`);
  if (!signerAllows(candidate.signer, input.route))
    return fail(
      3,
      `signer ${candidate.signer.name} may not enable route ${input.route} (policy ${policy.file})`,
    );
  const revoked = policy.revoked.find((entry) => entry.record === candidate.digest);
  if (revoked) return fail(4, `record ${candidate.digest} is revoked: ${revoked.reason}`);
  const running = await input.running.connectors();
  if (running === null) return fail(5, `this runtime has no connectors for route ${input.route}`);
  // The target first: where the fence lives (an engine that is both sides has one digest).
  for (const connector of [...running].sort((a, b) =>
    a.role === b.role ? 0 : a.role === 'target' ? -1 : 1,
  )) {
    const bound = record.connectors.find(
      (entry) => entry.role === connector.role && entry.name === connector.name,
    );
    if (!bound) return fail(5, `the record binds no ${connector.role} connector ${connector.name}`);
    if (bound.digest !== connector.digest)
      return fail(
        5,
        `${connector.role} connector ${connector.name} digest differs: record ${short(bound.digest)}…, running ${short(connector.digest)}… (the connector's code changed since it was certified)`,
      );
  }
  const runtime = input.running.runtime();
  if (record.runtime.digest !== runtime)
    return fail(
      6,
      `runtime digest differs: record ${short(record.runtime.digest)}…, running ${short(runtime)}… (src/, bin/, package.json or the lockfile changed)`,
    );
  if (record.suite.name !== CERTIFYING_SUITE)
    return fail(
      7,
      `the record was earned on suite ${record.suite.name}, not the shipped ${CERTIFYING_SUITE} suite`,
    );
  const suite = input.running.suite();
  if (record.suite.digest !== suite)
    return fail(
      7,
      `suite digest differs: record ${short(record.suite.digest)}…, shipped ${CERTIFYING_SUITE} suite ${short(suite)}…`,
    );
  const passed = new Set(
    record.acceptance.filter((entry) => entry.status === 'PASS').map((entry) => entry.item),
  );
  const missing = input.requiredItems.filter((item) => !passed.has(item));
  if (missing.length > 0)
    return fail(8, `mandatory acceptance item(s) not PASS by name: ${missing.join(', ')}`);
  return { step: 9, problem: null };
}

/**
 * Decides the protection mode of one run: enforced only with a record that passes every check and
 * a durable journal; otherwise legacy, naming the first failed check of the record that got furthest.
 */
export async function decideDeploymentPolicy(input: PolicyInput): Promise<DeploymentPolicyDecision> {
  const { route } = input;
  const legacy = (reason: string): DeploymentPolicyDecision => ({
    mode: 'legacy',
    route,
    connector_version: input.connectorVersion,
    reason: `${reason}${LEGACY_CLAIM}`,
    certification: null,
  });
  if (input.fenceless)
    return legacy(
      'the target is written without a fence (target.fence: none): no outcome can be proven, so every run that began the mutation stops for an operator',
    );
  const policy = input.policy;
  if (policy === null) return legacy(`no trust policy (${input.lookedFor})`);
  if (input.candidates.length === 0) return legacy(`no certification record in ${policy.recordsDir}`);
  let best: { check: Check; candidate: RecordCandidate } | null = null;
  for (const candidate of input.candidates) {
    const check = await checkRecord(candidate, input, policy);
    if (check.problem === null) {
      best = { check, candidate };
      break;
    }
    if (best === null || check.step > best.check.step) best = { check, candidate };
  }
  const { check, candidate } = best!;
  if (check.problem !== null) return legacy(check.problem);
  const record = candidate.predicate!;
  if (input.journal !== undefined && !input.journal.durable)
    return legacy(
      `route ${route} is certified (${candidate.file}), but its journal (${input.journal.kind}) is not durable: ${input.journal.reason}`,
    );
  return {
    mode: 'enforced',
    route,
    connector_version: input.connectorVersion,
    reason: `route ${route} is certified by record ${short(candidate.digest!)}… signed by ${candidate.signer!.name}: the running connectors, runtime and suite are the ones certified (evidence ${record.evidence.digest})`,
    certification: {
      record: candidate.digest!,
      evidence_digest: record.evidence.digest,
      certified_at: record.certified_at,
      signer: candidate.signer!.name,
    },
  };
}
