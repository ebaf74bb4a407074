import { resolveRouteId } from '../contracts/route-id.ts';

/**
 * The runtime deployment policy (spec "Migration and rollout"): durable duplicate-write protection
 * is enforced, and claimed, only for a route holding a valid certification for the connector
 * version this runtime ships. Every other route runs with legacy retry semantics and claims no
 * protection. Pure: the caller reads the certification files and passes their parsed contents.
 */

export const CERTIFICATION_SCHEMA = 'dpone.certification/v1';

/** What `dpone certify gate` writes to certifications/<route>.json when every acceptance item passed. */
export interface CertificationRecord {
  readonly schema: typeof CERTIFICATION_SCHEMA;
  readonly route: string;
  readonly connector_version: string;
  readonly runtime_version: string;
  /** Digest of the evidence the gate verified (`sha256:` + 64 hex). */
  readonly evidence_digest: string;
  readonly evidence_run_id: string;
  readonly seed: number;
  /** ISO-8601 time of the gate run. */
  readonly certified_at: string;
  /**
   * The spec's mandatory acceptance items and their status; all PASS in a valid record. `cells` and
   * `decided_by` (the ids of the evidence's cells that decided the item) are for review; records
   * written before they existed lack them.
   */
  readonly acceptance: readonly {
    readonly item: string;
    readonly status: string;
    readonly cells?: number;
    readonly decided_by?: readonly string[];
  }[];
}

/** `enforced`: certified route and connector version, and a durable journal. `legacy`: anything else. */
export type ProtectionMode = 'enforced' | 'legacy';

/** Where a run's journal is (safe location, never credentials) and whether it outlives the worker. */
export interface JournalDescription {
  /** `sqlite`, `postgres`, `mssql` or `memory`. */
  readonly kind: string;
  readonly location: string;
  /** Whether the policy counts it durable: a server, or a file marked shared. */
  readonly durable: boolean;
  /** One sentence: why it is (not) durable. */
  readonly reason: string;
}

export interface DeploymentPolicyDecision {
  readonly mode: ProtectionMode;
  readonly route: string;
  readonly connector_version: string | null;
  /** One sentence saying why, for the run's output. */
  readonly reason: string;
  /** The certification relied on, when enforced. */
  readonly certification: { readonly evidence_digest: string; readonly certified_at: string } | null;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Structural validity of one parsed certification file (anything else is ignored, never trusted). */
export function isCertificationRecord(value: unknown): value is CertificationRecord {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Partial<Record<keyof CertificationRecord, unknown>>;
  return (
    record.schema === CERTIFICATION_SCHEMA &&
    typeof record.route === 'string' &&
    record.route !== '' &&
    typeof record.connector_version === 'string' &&
    record.connector_version !== '' &&
    typeof record.runtime_version === 'string' &&
    typeof record.evidence_digest === 'string' &&
    DIGEST.test(record.evidence_digest) &&
    typeof record.certified_at === 'string' &&
    !Number.isNaN(Date.parse(record.certified_at)) &&
    Array.isArray(record.acceptance) &&
    record.acceptance.length > 0 &&
    record.acceptance.every(
      (entry: unknown) =>
        typeof entry === 'object' && entry !== null && (entry as { status?: unknown }).status === 'PASS',
    )
  );
}

/**
 * Decides the protection mode of one run. `connectorVersion` is the version of the route's
 * connector this runtime ships (null when the runtime does not know the route). A certified route
 * runs enforced only on a durable journal: a journal lost with the worker voids the guarantee.
 */
export function decideDeploymentPolicy(
  records: readonly unknown[],
  route: string,
  connectorVersion: string | null,
  journal?: JournalDescription,
): DeploymentPolicyDecision {
  const legacy = (reason: string): DeploymentPolicyDecision => ({
    mode: 'legacy',
    route,
    connector_version: connectorVersion,
    reason: `${reason}: legacy retry semantics, no duplicate-write protection is claimed`,
    certification: null,
  });
  if (connectorVersion === null) return legacy(`route ${route} has no known connector version`);
  // A record written under an alias (`sqlite`) certifies the route it names (`sqlite-to-sqlite`).
  const full = (id: string) => resolveRouteId(id)?.id ?? id;
  const valid = records.filter(isCertificationRecord).filter((record) => full(record.route) === full(route));
  const matching = valid
    .filter((record) => record.connector_version === connectorVersion)
    .sort((a, b) => Date.parse(b.certified_at) - Date.parse(a.certified_at))[0];
  if (!matching) {
    const other = valid.map((record) => record.connector_version);
    return legacy(
      other.length > 0
        ? `route ${route} is certified for connector ${other.join(', ')}, not ${connectorVersion}`
        : `route ${route} has no valid certification`,
    );
  }
  if (journal !== undefined && !journal.durable) {
    return legacy(
      `route ${route} is certified for connector ${connectorVersion}, but its journal (${journal.kind}) is not ` +
        `durable: ${journal.reason}`,
    );
  }
  return {
    mode: 'enforced',
    route,
    connector_version: connectorVersion,
    reason: `route ${route} is certified for connector ${connectorVersion} (evidence ${matching.evidence_digest})`,
    certification: { evidence_digest: matching.evidence_digest, certified_at: matching.certified_at },
  };
}
