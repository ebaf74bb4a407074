import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  CertificationPredicate,
  ConnectorCode,
  InTotoStatement,
  InTotoSubject,
} from '../../src/contracts/certification.ts';
import {
  CERTIFICATION_PREDICATE,
  CERTIFICATION_SCHEMA,
  CERTIFYING_SUITE,
  EVIDENCE_PREDICATE,
  STATEMENT_TYPE,
  hexOf,
} from '../../src/contracts/certification.ts';
import { suiteDigest } from '../../src/cli/shipped-suites.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import type { Provenance } from '../evidence/provenance.ts';
import { planRecordOf } from '../plan/plan-check.ts';
import type { GateResult } from './gate.ts';

const subject = (name: string, digest: string): InTotoSubject => ({
  name,
  digest: { sha256: hexOf(digest) },
});

/** The provenance a run recorded in its evidence (provenance.ts), or placeholders where absent. */
function provenanceOf(evidence: Evidence): Provenance {
  const recorded = evidence.environment as Partial<Provenance>;
  return {
    code: recorded.code ?? { connectors: [], runtime: 'sha256:', harness: 'sha256:' },
    suite: recorded.suite ?? null,
    git: recorded.git ?? null,
    ran_by: recorded.ran_by ?? { kind: 'local', where: 'unknown', workflow: null },
  };
}

/** The versions of what the cells ran against: Node, databases, Toxiproxy, Airflow. */
function enginesOf(evidence: Evidence): Record<string, string> {
  const environment = evidence.environment;
  const airflow = (environment as { airflow?: unknown }).airflow;
  return {
    node: environment.node,
    ...environment.databases,
    ...(environment.toxiproxy !== null ? { toxiproxy: environment.toxiproxy } : {}),
    ...(typeof airflow === 'string' ? { airflow } : {}),
  };
}

/** The subjects a certification binds: connector code, runtime, harness, suite, evidence. */
function subjects(evidence: Evidence, origin: Provenance): InTotoSubject[] {
  return [
    ...origin.code.connectors.map((connector: ConnectorCode) =>
      subject(`connector/${connector.role}/${connector.name}`, connector.digest),
    ),
    subject(`runtime/dpone-cert@${evidence.environment.runtime_version}`, origin.code.runtime),
    subject('harness', origin.code.harness),
    subject(`suite/${CERTIFYING_SUITE}`, suiteDigest(CERTIFYING_SUITE).digest),
    subject(`evidence/${evidence.run_id}`, evidence.digest ?? ''),
  ];
}

/**
 * The certification as an in-toto Statement: subjects = the digests of what was tested, predicate =
 * the certification (route, the gate's items, engines, commit, who ran it). `reviewOnly` marks what a
 * standalone `certify gate` writes: never signed, never enforced.
 */
export function certificationStatement(
  evidence: Evidence,
  gate: GateResult,
  now: Date,
  reviewOnly: boolean,
): InTotoStatement<CertificationPredicate> {
  const origin = provenanceOf(evidence);
  const plan = planRecordOf(evidence);
  const predicate: CertificationPredicate = {
    schema: CERTIFICATION_SCHEMA,
    route: evidence.route,
    review_only: reviewOnly,
    connector_version: evidence.environment.connector_version,
    connectors: origin.code.connectors,
    runtime: { version: evidence.environment.runtime_version, digest: origin.code.runtime },
    harness: { digest: origin.code.harness },
    // Built only for evidence whose `suite` line passed: its scenario files are the shipped suite's.
    suite: {
      name: CERTIFYING_SUITE,
      digest: suiteDigest(CERTIFYING_SUITE).digest,
      scenarios: (plan?.scenarios ?? []).map(({ file, sha256 }) => ({ file, sha256 })),
    },
    evidence: {
      digest: evidence.digest ?? '',
      run_id: evidence.run_id,
      seed: evidence.seed,
      cells: evidence.cells.length,
    },
    engines: enginesOf(evidence),
    git: origin.git,
    ran_by: origin.ran_by,
    certified_at: now.toISOString(),
    acceptance: gate.lines.map((line) => ({
      item: line.id,
      status: line.status,
      cells: line.cells,
      decided_by: line.decided_by ?? [],
    })),
  };
  return {
    _type: STATEMENT_TYPE,
    subject: subjects(evidence, origin),
    predicateType: CERTIFICATION_PREDICATE,
    predicate,
  };
}

/** A run's (or shard's) evidence as a statement: what `certify merge` verifies before it merges. */
export function evidenceStatement(evidence: Evidence): InTotoStatement {
  const origin = provenanceOf(evidence);
  return {
    _type: STATEMENT_TYPE,
    subject: [subject(`evidence/${evidence.run_id}`, evidence.digest ?? '')],
    predicateType: EVIDENCE_PREDICATE,
    predicate: {
      route: evidence.route,
      run_id: evidence.run_id,
      shard: evidence.shard ?? null,
      code: origin.code,
      suite: origin.suite,
      git: origin.git,
      ran_by: origin.ran_by,
    },
  };
}

/** The file names a run writes beside its evidence. */
export const RECORD_FILES = {
  signed: 'certification.sigstore.json',
  unsigned: 'certification.review.intoto.json',
  evidence: 'evidence.sigstore.json',
} as const;

/** Writes a JSON document atomically (temp file, rename), so a reader never sees half of it. */
export async function writeJsonFile(dir: string, name: string, value: unknown): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`);
  await rename(temporary, file);
  return file;
}
