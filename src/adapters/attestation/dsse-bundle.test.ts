import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { InTotoStatement } from '../../contracts/certification.ts';
import { STATEMENT_TYPE, preAuthEncoding } from '../../contracts/certification.ts';
import { parseRecord, recordDigest, signWithKey, verifyWithKey } from './dsse-bundle.ts';
import { signingKeyFromPem, verifyingKeyFromPem } from './signing-key.ts';

const statement: InTotoStatement = {
  _type: STATEMENT_TYPE,
  subject: [{ name: 'evidence/run-1', digest: { sha256: 'a'.repeat(64) } }],
  predicateType: 'https://dpone.example/attestation/test/v1',
  predicate: { route: 'a-to-b' },
};

function keyPair(kind: 'ed25519' | 'ec', curve = 'P-256') {
  const { privateKey, publicKey } =
    kind === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: curve });
  return {
    signing: signingKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), '--key'),
    verifying: verifyingKeyFromPem(
      publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      'public_key',
    ),
  };
}

describe('DSSE envelopes in Sigstore bundles, signed with a key file', () => {
  it('PAE is the DSSE v1 encoding (the spec test vector)', () => {
    // https://github.com/secure-systems-lab/dsse/blob/master/protocol.md#test-case
    expect(
      Buffer.from(preAuthEncoding('http://example.com/HelloWorld', Buffer.from('hello world'))).toString(),
    ).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  });

  for (const kind of ['ed25519', 'ec'] as const) {
    it(`${kind}: signs, verifies, and refuses another key or a changed payload`, async () => {
      const { signing, verifying } = keyPair(kind);
      const bundle = signWithKey(statement, signing);
      expect(verifyWithKey(bundle, verifying)).toBe(true);
      expect(verifyWithKey(bundle, keyPair(kind).verifying)).toBe(false);
      const forged = { ...statement, predicate: { route: 'c-to-d' } };
      const tampered = {
        ...bundle,
        dsseEnvelope: {
          ...bundle.dsseEnvelope,
          payload: Buffer.from(JSON.stringify(forged)).toString('base64'),
        },
      };
      expect(verifyWithKey(tampered, verifying)).toBe(false);
      const parsed = parseRecord(JSON.parse(JSON.stringify(bundle)));
      expect(parsed.kind).toBe('bundle');
      if (parsed.kind === 'bundle') {
        expect(parsed.signer).toBe('key');
        expect(parsed.statement).toEqual(statement);
        expect(recordDigest(parsed.payload)).toMatch(/^sha256:[0-9a-f]{64}$/);
      }
    });
  }

  it('the key-signed bundle verifies with Sigstore’s own verifier (@sigstore/verify)', async () => {
    const { bundleFromJSON } = await import('@sigstore/bundle');
    const { Verifier, toSignedEntity, toTrustMaterial } = await import('@sigstore/verify');
    const { TrustedRoot, PublicKeyDetails } = await import('@sigstore/protobuf-specs');
    for (const kind of ['ed25519', 'ec'] as const) {
      const { privateKey, publicKey } =
        kind === 'ed25519'
          ? generateKeyPairSync('ed25519')
          : generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const signing = signingKeyFromPem(
        privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        '--key',
      );
      const bundle = signWithKey(statement, signing);
      const root = TrustedRoot.fromJSON({
        certificateAuthorities: [],
        tlogs: [],
        ctlogs: [],
        timestampAuthorities: [],
      });
      const keys = {
        [signing.keyid]: {
          rawBytes: publicKey.export({ type: 'spki', format: 'der' }),
          keyDetails:
            kind === 'ed25519' ? PublicKeyDetails.PKIX_ED25519 : PublicKeyDetails.PKIX_ECDSA_P256_SHA_256,
          validFor: undefined,
        },
      };
      const verifier = new Verifier(toTrustMaterial(root, keys), {
        tlogThreshold: 0,
        ctlogThreshold: 0,
        timestampThreshold: 0,
      });
      expect(() => verifier.verify(toSignedEntity(bundleFromJSON(bundle)))).not.toThrow();
    }
  });

  it('refuses keys other than ed25519 and ECDSA P-256, and says which field', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(() =>
      signingKeyFromPem(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), '--key'),
    ).toThrow(/--key: only ed25519 and ECDSA P-256/);
    expect(() => keyPair('ec', 'P-384')).toThrow(/only ed25519 and ECDSA P-256/);
    expect(() => signingKeyFromPem('not a key', '--key')).toThrow(/--key is not a PEM private key/);
  });

  it('reads an unsigned statement as unsigned and a foreign file as malformed', () => {
    expect(parseRecord(statement).kind).toBe('unsigned');
    expect(parseRecord({ schema: 'dpone.certification/v1', route: 'a' })).toMatchObject({
      kind: 'malformed',
    });
    expect(parseRecord({ mediaType: 'application/vnd.dev.sigstore.bundle+json;version=0.1' })).toMatchObject({
      kind: 'malformed',
    });
  });
});
