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

/** Whether a route's target is PostgreSQL (`postgres`, `<source>-to-postgres`). */
export function targetsPostgres(route: string): boolean {
  return route === 'postgres' || route.endsWith('-to-postgres');
}

/**
 * The items a record for a route whose target is PostgreSQL must also hold (issue 28's lines; issue
 * 33's power loss, full disk and corrupt journal rows under the server).
 */
export const POSTGRES_TARGET_ACCEPTANCE_ITEMS = [
  'pooler-values-exact',
  'lost-commit-diverged',
  'stall-bounded',
  'power-loss-server-durable',
  'full-disk-server-refused-then-one',
  'journal-corruption-server-detected',
] as const;

/**
 * Whether a route's target has the plain (fenceless) write legacy and shadow modes use: SQLite and
 * PostgreSQL (`sqlite`, `postgres`, `<source>-to-sqlite|postgres`).
 */
export function targetsPlainWrites(route: string): boolean {
  return route === 'sqlite' || route.endsWith('-to-sqlite') || targetsPostgres(route);
}

/** The items a record for a route with plain writes must also hold (issue 36's rollout line). */
export const PLAIN_WRITE_ACCEPTANCE_ITEMS = ['shadow-report-exact'] as const;

/** Whether a route's target is a SQLite file (`sqlite`, `<source>-to-sqlite`): its journal is one too. */
export function targetsSqlite(route: string): boolean {
  return route === 'sqlite' || route.endsWith('-to-sqlite');
}

/** The items a record for a route whose target is SQLite must also hold (issue 33's storage lines). */
export const SQLITE_TARGET_ACCEPTANCE_ITEMS = [
  'power-loss-journal-durable',
  'power-loss-target-durable',
  'full-disk-refused-then-one',
  'read-only-refused-then-one',
  'journal-corruption-detected',
] as const;

/** Every item a record for this route must hold, each PASS, by name. */
export function mandatoryAcceptanceItems(route: string): readonly string[] {
  return [
    ...MANDATORY_ACCEPTANCE_ITEMS,
    ...(targetsPostgres(route) ? POSTGRES_TARGET_ACCEPTANCE_ITEMS : []),
    ...(targetsPlainWrites(route) ? PLAIN_WRITE_ACCEPTANCE_ITEMS : []),
    ...(targetsSqlite(route) ? SQLITE_TARGET_ACCEPTANCE_ITEMS : []),
  ];
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
