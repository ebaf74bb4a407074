import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { InTotoStatement, SigstoreBundle } from '../../contracts/certification.ts';
import { IN_TOTO_PAYLOAD_TYPE } from '../../contracts/certification.ts';
import { DponeError, ERROR_CODES } from '../../contracts/errors.ts';
import { statementBytes } from './dsse-bundle.ts';

/**
 * Keyless signing through Sigstore: an OIDC identity (GitHub Actions' token with `id-token: write`)
 * gets a short-lived certificate from Fulcio, the signature is logged in Rekor, and the bundle
 * carries certificate and log entry. Verification is offline against a trusted root (Fulcio CA,
 * Rekor and CT log keys): the Sigstore public-good root bundled with @sigstore/tuf by default, or a
 * file the policy names. The libraries load only when a keyless record is signed or read.
 */

export const PUBLIC_GOOD_FULCIO = 'https://fulcio.sigstore.dev';
export const PUBLIC_GOOD_REKOR = 'https://rekor.sigstore.dev';

export interface KeylessSignOptions {
  readonly fulcioURL?: string;
  readonly rekorURL?: string;
  /** The OIDC token; default: the CI's (GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_* variables). */
  readonly identityToken?: () => Promise<string>;
}

export async function signKeyless(
  statement: InTotoStatement,
  options: KeylessSignOptions = {},
): Promise<SigstoreBundle> {
  const sign = await import('@sigstore/sign');
  const { bundleToJSON } = await import('@sigstore/bundle');
  const identityProvider = options.identityToken
    ? { getToken: options.identityToken }
    : new sign.CIContextProvider('sigstore');
  const signer = new sign.FulcioSigner({
    fulcioBaseURL: options.fulcioURL ?? PUBLIC_GOOD_FULCIO,
    identityProvider,
  });
  const witness = new sign.RekorWitness({
    rekorBaseURL: options.rekorURL ?? PUBLIC_GOOD_REKOR,
    // An `intoto` (v0.0.2) entry keeps the envelope's signature and payload hash in the log entry
    // itself: the form the mocked Rekor produces too, so the path tested here is the one CI uses.
    entryType: 'intoto',
  });
  const builder = new sign.DSSEBundleBuilder({ signer, witnesses: [witness] });
  try {
    const bundle = await builder.create({ data: statementBytes(statement), type: IN_TOTO_PAYLOAD_TYPE });
    return bundleToJSON(bundle) as unknown as SigstoreBundle;
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'keyless signing failed: no OIDC token (run in GitHub Actions with id-token: write) or Fulcio/Rekor unreachable',
      { field: '--keyless' },
      { cause: error },
    );
  }
}

/** The Sigstore public-good trusted root as @sigstore/tuf ships it (its offline seed). */
export function publicGoodTrustedRoot(): unknown {
  const require = createRequire(import.meta.url);
  const seeds = JSON.parse(readFileSync(require.resolve('@sigstore/tuf/seeds.json'), 'utf8')) as Record<
    string,
    { targets: Record<string, string> }
  >;
  const encoded = Object.values(seeds)[0]?.targets['trusted_root.json'];
  if (encoded === undefined) throw new Error('@sigstore/tuf ships no trusted_root.json seed');
  return JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
}

export interface KeylessIdentity {
  /** The OIDC issuer, e.g. https://token.actions.githubusercontent.com. */
  readonly issuer: string;
  /** The certificate's subject alternative name: the workflow identity. */
  readonly identity: string;
}

/**
 * Verifies a keyless bundle offline: certificate chain to the trusted root's Fulcio CA, the SCT,
 * the Rekor entry's signed promise, the signature over the DSSE envelope, and the certificate's
 * identity and issuer against `identity`. Returns null when it verifies, else why not.
 */
export async function verifyKeyless(
  bundle: SigstoreBundle,
  identity: KeylessIdentity,
  trustedRoot: unknown,
): Promise<string | null> {
  const { bundleFromJSON } = await import('@sigstore/bundle');
  const { Verifier, toSignedEntity, toTrustMaterial } = await import('@sigstore/verify');
  const { TrustedRoot } = await import('@sigstore/protobuf-specs');
  try {
    const verifier = new Verifier(toTrustMaterial(TrustedRoot.fromJSON(trustedRoot)), {
      tlogThreshold: 1,
      ctlogThreshold: 1,
    });
    verifier.verify(toSignedEntity(bundleFromJSON(bundle)), {
      subjectAlternativeName: identity.identity,
      extensions: { issuer: identity.issuer },
    });
    return null;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return `keyless signature does not verify (${typeof code === 'string' ? code : 'invalid bundle'})`;
  }
}
