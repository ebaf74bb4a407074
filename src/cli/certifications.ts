import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CertificationPredicate } from '../contracts/certification.ts';
import { CERTIFYING_SUITE } from '../contracts/certification.ts';
import type { TrustPolicy, KeylessSigner } from '../contracts/trust-policy.ts';
import { invalidInput } from '../contracts/errors.ts';
import { resolveRouteId } from './route-names.ts';
import type {
  DeploymentPolicyDecision,
  JournalDescription,
  RecordCandidate,
  RunningCode,
} from '../core/deployment-policy.ts';
import { decideDeploymentPolicy } from '../core/deployment-policy.ts';
import { parseRecord, recordDigest, verifyWithKey } from '../adapters/attestation/dsse-bundle.ts';
import type { ParsedRecord } from '../adapters/attestation/dsse-bundle.ts';
import { verifyingKeyFromPem } from '../adapters/attestation/signing-key.ts';
import { runtimeDigest } from './code-digest.ts';
import { suiteDigest } from './shipped-suites.ts';
import { policyLocation, readTrustPolicy } from './trust-policy-file.ts';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';
import { routeAcceptanceItems } from './route-acceptance.ts';

/**
 * The connector versions this runtime ships, per engine and role (PluginSource.version,
 * PluginTarget.version of each built-in engine): the human name of a connector (shown in evidence and
 * records). What binds a certification is the code digest (route-code.ts), computed from the
 * files, never this string.
 */
export const CONNECTOR_VERSIONS: Readonly<
  Record<string, { readonly source?: string; readonly target?: string }>
> = Object.fromEntries(
  Object.entries(BUILT_IN_CONNECTORS).map(([name, engine]) => [
    name,
    {
      ...(engine.source?.version ? { source: engine.source.version } : {}),
      ...(engine.target?.version ? { target: engine.target.version } : {}),
    },
  ]),
);

/** A composed route's version: both connectors' (`<source>+<target>`). */
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

/** The record files in the policy's records folder (`*.json`), sorted; none when it does not exist. */
function recordFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

const MAX_RECORD_BYTES = 4 * 1024 * 1024;

let publicGoodRoot: unknown = null;

async function trustedRootOf(policy: TrustPolicy): Promise<unknown> {
  if (policy.trustedRoot !== null) {
    try {
      return JSON.parse(readFileSync(policy.trustedRoot, 'utf8'));
    } catch {
      throw invalidInput(
        `trust.trusted_root ${policy.trustedRoot} is not a readable JSON trusted root (${policy.file})`,
        {
          field: 'trust.trusted_root',
        },
      );
    }
  }
  if (publicGoodRoot === null)
    publicGoodRoot = (await import('../adapters/attestation/keyless.ts')).publicGoodTrustedRoot();
  return publicGoodRoot;
}

/** Which signer of the policy signed a parsed bundle, or why none did. */
async function verifySigner(
  parsed: Extract<ParsedRecord, { kind: 'bundle' }>,
  policy: TrustPolicy,
): Promise<{ signer: RecordCandidate['signer']; problem: string | null }> {
  if (parsed.signer === 'key') {
    const hint = parsed.bundle.verificationMaterial.publicKey?.hint ?? '(no key hint)';
    let listed = false;
    for (const signer of policy.signers) {
      if (signer.kind !== 'key') continue;
      const key = verifyingKeyFromPem(signer.publicKeyPem, `signer ${signer.name} public_key`);
      if (key.keyid === hint) listed = true;
      if (verifyWithKey(parsed.bundle, key)) return { signer, problem: null };
    }
    return {
      signer: null,
      problem: listed
        ? `the signature does not verify under key ${hint} (the record was changed after signing)`
        : `signed by key ${hint}, which the policy does not list`,
    };
  }
  const keyless = policy.signers.filter((signer): signer is KeylessSigner => signer.kind === 'keyless');
  if (keyless.length === 0)
    return { signer: null, problem: 'signed keyless, but the policy lists no keyless signer' };
  const { verifyKeyless } = await import('../adapters/attestation/keyless.ts');
  const root = await trustedRootOf(policy);
  let last = '';
  for (const signer of keyless) {
    const problem = await verifyKeyless(parsed.bundle, signer, root);
    if (problem === null) return { signer, problem: null };
    last = problem;
  }
  return { signer: null, problem: `no keyless signer of the policy matches: ${last}` };
}

/** Reads one record file and verifies its signature against the policy's signers. */
export async function readCandidate(file: string, policy: TrustPolicy): Promise<RecordCandidate> {
  const none = { digest: null, signer: null, predicateType: null, predicate: null, subjects: [] };
  let value: unknown;
  try {
    // A record is a few kilobytes: anything far larger is not one (and is not read into memory).
    if (statSync(file).size > MAX_RECORD_BYTES) return { file, ...none, problem: 'too large to be a record' };
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { file, ...none, problem: 'not readable JSON' };
  }
  const parsed = parseRecord(value);
  if (parsed.kind === 'malformed')
    return { file, ...none, problem: `not a certification record: ${parsed.problem}` };
  const content = {
    digest: recordDigest(parsed.payload),
    predicateType: parsed.statement.predicateType,
    predicate: parsed.statement.predicate as CertificationPredicate,
    subjects: parsed.statement.subject,
  };
  if (parsed.kind === 'unsigned')
    return {
      file,
      ...content,
      signer: null,
      problem:
        'an unsigned record (review only: what a standalone certify gate writes); the policy trusts signed records only',
    };
  const { signer, problem } = await verifySigner(parsed, policy);
  return { file, ...content, signer, problem };
}

/** Every record of the policy's records folder, read and verified. */
export async function readCandidates(policy: TrustPolicy): Promise<RecordCandidate[]> {
  const candidates: RecordCandidate[] = [];
  for (const file of recordFiles(policy.recordsDir)) candidates.push(await readCandidate(file, policy));
  return candidates;
}

export interface PolicyRequest {
  readonly route: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** `--policy FILE`, when given. */
  readonly policyFlag?: string;
  /** The workload's folder, where `dpone-policy.yaml` is looked for (null: none). */
  readonly workloadDir: string | null;
  readonly connectorVersion: string | null;
  readonly connectors: RunningCode['connectors'];
  readonly journal?: JournalDescription;
  readonly fenceless?: boolean;
}

/** The running runtime's and shipped suite's digests, each computed once and only when asked. */
export function runningCode(connectors: RunningCode['connectors']): RunningCode {
  let runtime: string | null = null;
  let suite: string | null = null;
  return {
    connectors,
    runtime: () => (runtime ??= runtimeDigest().digest),
    suite: () => (suite ??= suiteDigest(CERTIFYING_SUITE).digest),
  };
}

/** The protection decision for one run: policy located, records read and verified, code compared. */
export async function deploymentPolicyFor(request: PolicyRequest): Promise<DeploymentPolicyDecision> {
  const route = resolveRouteId(request.route)?.id ?? request.route;
  const location = policyLocation(request.policyFlag, request.env, request.cwd, request.workloadDir);
  const policy = location === null ? null : await readTrustPolicy(location.file, location.source);
  const lookedFor =
    location === null
      ? 'none named: pass --policy FILE or set DPONE_POLICY'
      : `looked for ${location.file} (${location.source}); --policy FILE or DPONE_POLICY name another`;
  return decideDeploymentPolicy({
    route,
    connectorVersion: request.connectorVersion,
    policy,
    lookedFor,
    candidates: policy === null || request.fenceless ? [] : await readCandidates(policy),
    running: runningCode(request.connectors),
    requiredItems: routeAcceptanceItems(route),
    ...(request.journal ? { journal: request.journal } : {}),
    ...(request.fenceless ? { fenceless: true } : {}),
  });
}
