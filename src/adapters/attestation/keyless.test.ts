import { describe, expect, it } from 'vitest';
import type { InTotoStatement } from '../../contracts/certification.ts';
import { STATEMENT_TYPE } from '../../contracts/certification.ts';
import { contractProblems } from '../../../harness/evidence/contract-schemas.ts';
import { parseRecord } from './dsse-bundle.ts';
import { publicGoodTrustedRoot, signKeyless, verifyKeyless } from './keyless.ts';
import { oidcToken, startMockSigstore } from './fixtures/mock-sigstore.ts';

const ISSUER = 'https://token.actions.githubusercontent.com';
const WORKFLOW = 'https://github.com/acme/dpone-cert/.github/workflows/certify.yml@refs/heads/main';
const statement: InTotoStatement = {
  _type: STATEMENT_TYPE,
  subject: [{ name: 'evidence/run-1', digest: { sha256: 'a'.repeat(64) } }],
  predicateType: 'https://dpone.example/attestation/test/v1',
  predicate: { route: 'a-to-b' },
};

describe('keyless signing through Sigstore (mocked Fulcio and Rekor over loopback HTTP)', () => {
  it('signs a DSSE bundle with a Fulcio certificate and a Rekor entry, and verifies it offline', async () => {
    await using sigstore = await startMockSigstore();
    const bundle = await signKeyless(statement, {
      fulcioURL: sigstore.url,
      rekorURL: sigstore.url,
      identityToken: async () => oidcToken({ iss: ISSUER, sub: WORKFLOW }),
    });
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(bundle.verificationMaterial.certificate).toBeDefined();
    expect(bundle.verificationMaterial.tlogEntries).toHaveLength(1);
    expect(contractProblems('certification-bundle', JSON.parse(JSON.stringify(bundle)))).toEqual([]);
    const parsed = parseRecord(JSON.parse(JSON.stringify(bundle)));
    expect(parsed.kind === 'bundle' && parsed.signer).toBe('keyless');
    expect(
      await verifyKeyless(bundle, { issuer: ISSUER, identity: WORKFLOW }, sigstore.trustedRoot),
    ).toBeNull();

    // Another workflow, another issuer, another trusted root: each refused.
    const other = WORKFLOW.replace('certify.yml', 'evil.yml');
    expect(await verifyKeyless(bundle, { issuer: ISSUER, identity: other }, sigstore.trustedRoot)).toMatch(
      /does not verify/,
    );
    expect(
      await verifyKeyless(
        bundle,
        { issuer: 'https://accounts.example', identity: WORKFLOW },
        sigstore.trustedRoot,
      ),
    ).toMatch(/does not verify/);
    expect(
      await verifyKeyless(bundle, { issuer: ISSUER, identity: WORKFLOW }, publicGoodTrustedRoot()),
    ).toMatch(/does not verify/);
    // A payload changed after signing.
    const tampered = {
      ...bundle,
      dsseEnvelope: {
        ...bundle.dsseEnvelope,
        payload: Buffer.from(JSON.stringify({ ...statement, predicate: { route: 'c-to-d' } })).toString(
          'base64',
        ),
      },
    };
    expect(
      await verifyKeyless(tampered, { issuer: ISSUER, identity: WORKFLOW }, sigstore.trustedRoot),
    ).toMatch(/does not verify/);
  });
});
