/**
 * The deployment's trust policy (`dpone-policy.yaml`, section `trust:`): which signers may enable
 * which routes, and which records are revoked. The deployment owns it; the runtime only reads it.
 * Other sections of the same file (per-deployment rollout modes) are added beside `trust:`.
 */

export const POLICY_FILE_NAME = 'dpone-policy.yaml';
/** Names the policy file for `dpone run` and `certify explain` (a flag, `--policy`, wins). */
export const POLICY_ENV = 'DPONE_POLICY';

/** A signer by key file: a public key (ed25519 or ECDSA P-256, PEM). */
export interface KeySigner {
  readonly kind: 'key';
  readonly name: string;
  readonly routes: readonly string[];
  readonly publicKeyPem: string;
}

/** A keyless signer: an OIDC issuer and the identity its certificate must name (a CI workflow). */
export interface KeylessSigner {
  readonly kind: 'keyless';
  readonly name: string;
  readonly routes: readonly string[];
  readonly issuer: string;
  readonly identity: string;
}

export type TrustedSigner = KeySigner | KeylessSigner;

export interface RevokedRecord {
  /** The record digest (sha256 of its signed statement, as `certify explain` prints it). */
  readonly record: string;
  readonly reason: string;
}

export interface TrustPolicy {
  /** The policy file, absolute. */
  readonly file: string;
  /** Where the records are (absolute): `trust.records`, relative to the policy file. */
  readonly recordsDir: string;
  readonly signers: readonly TrustedSigner[];
  readonly revoked: readonly RevokedRecord[];
  /** A Sigstore trusted root for keyless records (absolute path), else null: the bundled public-good root. */
  readonly trustedRoot: string | null;
}

/** Whether a signer may enable `route` (its full id; `*` allows every route). */
export function signerAllows(signer: TrustedSigner, route: string): boolean {
  return signer.routes.includes('*') || signer.routes.includes(route);
}
