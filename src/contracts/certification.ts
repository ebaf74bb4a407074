/**
 * The certification record (dpone.certification/v2): an in-toto Statement v1 whose subjects are
 * the digests of what was tested (connector code, runtime, suite, evidence, harness) and whose
 * predicate is the certification, in a DSSE envelope inside a Sigstore bundle (v0.3). Formats:
 * https://github.com/in-toto/attestation (Statement v1), https://github.com/secure-systems-lab/dsse
 * (envelope, PAE), https://github.com/sigstore/protobuf-specs (bundle).
 */

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const BUNDLE_MEDIA_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
/** The predicate of a route certification (what `certify run --gate` signs). */
export const CERTIFICATION_PREDICATE = 'https://dpone.example/attestation/certification/v2';
/** The predicate of a run's or shard's evidence (what `certify run --sign` signs for a merge). */
export const EVIDENCE_PREDICATE = 'https://dpone.example/attestation/evidence/v1';
export const CERTIFICATION_SCHEMA = 'dpone.certification/v2';
/** The suite a route must be certified on: the one this runtime ships as `full`. */
export const CERTIFYING_SUITE = 'full';

/**
 * The acceptance items a record must hold, each PASS, by name, for `dpone run` to trust it: the
 * spec's mandatory list, the lost-journal and Airflow items, and the gate's own preconditions
 * (harness/gate: a test keeps this list and the gate's items equal).
 */
export const MANDATORY_ACCEPTANCE_ITEMS = [
  'evidence-integrity',
  'route-and-scope',
  'plan',
  'suite',
  'code-digests',
  'kill-every-transition',
  'two-workers-one-mutation',
  'intent-conflict-before-io',
  'unknown-never-success',
  'unavailable-is-unverified',
  'journal-loss-one-mutation',
  'airflow-one-mutation',
  'clock-skew',
  'no-variant-survived',
  'run-scope',
  'run-verdict',
] as const;

/** The items a record for a route whose target has plain writes must also hold (issue 36's rollout line). */
export const PLAIN_WRITE_ACCEPTANCE_ITEMS = ['shadow-report-exact'] as const;

/**
 * What a route's target adds to the items its record must hold, from the target engine's
 * registration (src/cli/route-acceptance.ts reads it): the engine's own items, and the plain-write
 * item when the target can also be written without a fence.
 */
export interface TargetAcceptance {
  /** The engine's own items (ConnectorPlugin.acceptance.targetItems), in its order. */
  readonly targetItems: readonly string[];
  /** The target has plain (fenceless) writes, the ones legacy and shadow modes use (`openPlain`). */
  readonly plainWrites: boolean;
  /** Where the plain-write item is listed: after the engine's own items (the default) or before them. */
  readonly plainWriteItem?: 'before' | 'after';
}

/** Every item a record for a route with this target must hold, each PASS, by name, in the order a refusal lists them. */
export function mandatoryAcceptanceItems(target: TargetAcceptance): readonly string[] {
  const plain = target.plainWrites ? PLAIN_WRITE_ACCEPTANCE_ITEMS : [];
  return target.plainWriteItem === 'before'
    ? [...MANDATORY_ACCEPTANCE_ITEMS, ...plain, ...target.targetItems]
    : [...MANDATORY_ACCEPTANCE_ITEMS, ...target.targetItems, ...plain];
}

/** One connector's code as it ran: a built-in engine or a plug-in (its `meta.name`). */
export interface ConnectorCode {
  readonly role: 'source' | 'target';
  readonly name: string;
  /** `sha256:` + 64 hex, over the connector's files (src/cli/code-digest.ts). */
  readonly digest: string;
}

export interface InTotoSubject {
  readonly name: string;
  readonly digest: { readonly sha256: string };
}

export interface InTotoStatement<P = unknown> {
  readonly _type: typeof STATEMENT_TYPE;
  readonly subject: readonly InTotoSubject[];
  readonly predicateType: string;
  readonly predicate: P;
}

/** Who ran the certification: the CI run when in CI, else the machine. */
export interface RanBy {
  readonly kind: 'github-actions' | 'ci' | 'local';
  /** The run's URL (GitHub Actions), or the host name. */
  readonly where: string;
  /** The workflow ref (GitHub Actions), else null. */
  readonly workflow: string | null;
}

export interface AcceptanceEntry {
  readonly item: string;
  readonly status: string;
  readonly cells: number;
  readonly decided_by: readonly string[];
}

export interface CertificationPredicate {
  readonly schema: typeof CERTIFICATION_SCHEMA;
  readonly route: string;
  /** True for what a standalone `certify gate` writes: explained, never signed, never enforced. */
  readonly review_only: boolean;
  /** The human version of the connectors (for display; the digests bind). */
  readonly connector_version: string;
  readonly connectors: readonly ConnectorCode[];
  readonly runtime: { readonly version: string; readonly digest: string };
  readonly harness: { readonly digest: string };
  readonly suite: {
    readonly name: string;
    readonly digest: string;
    /** The scenario files the run planned from, with their content digests. */
    readonly scenarios: readonly { readonly file: string; readonly sha256: string }[];
  };
  readonly evidence: {
    readonly digest: string;
    readonly run_id: string;
    readonly seed: number;
    readonly cells: number;
  };
  /** Node, the databases, Toxiproxy and Airflow versions the cells ran against. */
  readonly engines: Readonly<Record<string, string>>;
  readonly git: { readonly commit: string; readonly dirty: boolean } | null;
  readonly ran_by: RanBy;
  readonly certified_at: string;
  readonly acceptance: readonly AcceptanceEntry[];
}

export interface DsseSignature {
  readonly keyid: string;
  readonly sig: string;
}

export interface DsseEnvelope {
  readonly payloadType: string;
  /** base64 of the statement's bytes. */
  readonly payload: string;
  readonly signatures: readonly DsseSignature[];
}

/** The part of a Sigstore bundle v0.3 this runtime writes and reads (the JSON form of the protobuf). */
export interface SigstoreBundle {
  readonly mediaType: string;
  readonly verificationMaterial: {
    readonly publicKey?: { readonly hint: string };
    readonly certificate?: { readonly rawBytes: string };
    readonly tlogEntries: readonly unknown[];
    readonly timestampVerificationData?: unknown;
  };
  readonly dsseEnvelope: DsseEnvelope;
}

/**
 * DSSE's Pre-Authentication Encoding: what is signed. Binding the payload type stops a signature
 * over one kind of document from being replayed as another.
 */
export function preAuthEncoding(payloadType: string, payload: Uint8Array): Uint8Array {
  const type = new TextEncoder().encode(payloadType);
  const head = new TextEncoder().encode(`DSSEv1 ${type.length} ${payloadType} ${payload.length} `);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head, 0);
  out.set(payload, head.length);
  return out;
}

/** `sha256:<hex>` → `<hex>` for an in-toto digest set (and back). */
export function hexOf(digest: string): string {
  return digest.startsWith('sha256:') ? digest.slice('sha256:'.length) : digest;
}
