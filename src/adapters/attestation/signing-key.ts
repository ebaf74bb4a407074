import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { invalidInput } from '../../contracts/errors.ts';

/**
 * Key-file signing for DSSE envelopes with node:crypto: ed25519 (signs the PAE bytes) or ECDSA on
 * P-256 with SHA-256 (DER signature), the two key kinds Sigstore's key-based bundles also use.
 */

export type KeyAlgorithm = 'ed25519' | 'ecdsa-p256';

export interface SigningKey {
  readonly keyid: string;
  readonly algorithm: KeyAlgorithm;
  readonly publicKeyPem: string;
  sign(data: Uint8Array): Buffer;
}

export interface VerifyingKey {
  readonly keyid: string;
  readonly algorithm: KeyAlgorithm;
  verify(data: Uint8Array, signature: Uint8Array): boolean;
}

function algorithmOf(key: KeyObject, field: string): KeyAlgorithm {
  if (key.asymmetricKeyType === 'ed25519') return 'ed25519';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return 'ecdsa-p256';
  throw invalidInput(`${field}: only ed25519 and ECDSA P-256 keys are accepted`, { field });
}

/** The key id: sha256 of the public key's SPKI DER (what a policy or `certify explain` shows). */
export function keyIdOf(publicKey: KeyObject): string {
  return `sha256:${createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')}`;
}

const hashOf = (algorithm: KeyAlgorithm) => (algorithm === 'ed25519' ? null : 'sha256');

/** The key `create` reads from `pem`, else INVALID_INPUT naming `field`; the text never appears in an error. */
function keyFromPem(
  create: (pem: string) => KeyObject,
  kind: 'private' | 'public',
  pem: string,
  field: string,
): KeyObject {
  try {
    return create(pem);
  } catch {
    throw invalidInput(`${field} is not a PEM ${kind} key (ed25519 or ECDSA P-256)`, { field });
  }
}

/** A private key from PEM (PKCS#8 or SEC1); the text never appears in an error. */
export function signingKeyFromPem(pem: string, field: string): SigningKey {
  const key = keyFromPem(createPrivateKey, 'private', pem, field);
  const algorithm = algorithmOf(key, field);
  const publicKey = createPublicKey(key);
  return {
    keyid: keyIdOf(publicKey),
    algorithm,
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    sign: (data) => sign(hashOf(algorithm), data, key),
  };
}

/** A public key from PEM (SPKI). */
export function verifyingKeyFromPem(pem: string, field: string): VerifyingKey {
  const key = keyFromPem(createPublicKey, 'public', pem, field);
  const algorithm = algorithmOf(key, field);
  return {
    keyid: keyIdOf(key),
    algorithm,
    verify: (data, signature) => {
      try {
        return verify(hashOf(algorithm), data, key, signature);
      } catch {
        return false;
      }
    },
  };
}
