import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signKeyless } from '../adapters/attestation/keyless.ts';
import { oidcToken, startMockSigstore } from '../adapters/attestation/fixtures/mock-sigstore.ts';
import { deploymentPolicyFor } from './certifications.ts';
import { certificationFor } from './fixtures/trusted-record.ts';
import { builtInRouteCode } from './route-code.ts';

const ISSUER = 'https://token.actions.githubusercontent.com';
const WORKFLOW = 'https://github.com/acme/dpone-cert/.github/workflows/certify.yml@refs/heads/main';
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function policy(dir: string, identity: string): void {
  writeFileSync(
    join(dir, 'dpone-policy.yaml'),
    [
      'trust:',
      '  trusted_root: trusted_root.json',
      '  signers:',
      '    - name: certify-workflow',
      `      keyless: { issuer: '${ISSUER}', identity: '${identity}' }`,
      "      routes: ['*']",
      '',
    ].join('\n'),
  );
}

describe('dpone run trusts a keyless record only from the workflow identity the policy names', () => {
  it('enforced for certify.yml on main; legacy for another workflow (mocked Fulcio and Rekor, offline verification)', async () => {
    await using sigstore = await startMockSigstore();
    const dir = mkdtempSync(join(tmpdir(), 'dpone-keyless-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'certifications'));
    writeFileSync(join(dir, 'trusted_root.json'), JSON.stringify(sigstore.trustedRoot));
    const bundle = await signKeyless(certificationFor('sqlite'), {
      fulcioURL: sigstore.url,
      rekorURL: sigstore.url,
      identityToken: async () => oidcToken({ iss: ISSUER, sub: WORKFLOW }),
    });
    writeFileSync(join(dir, 'certifications', 'sqlite.sigstore.json'), JSON.stringify(bundle));
    const decide = () =>
      deploymentPolicyFor({
        route: 'sqlite',
        cwd: dir,
        env: {},
        workloadDir: dir,
        connectorVersion: 'v',
        connectors: async () => builtInRouteCode('sqlite'),
        journal: { kind: 'postgres', location: 'db', durable: true, reason: 'server' },
      });
    policy(dir, WORKFLOW);
    expect((await decide()).mode).toBe('enforced');
    policy(dir, WORKFLOW.replace('@refs/heads/main', '@refs/heads/feature'));
    const other = await decide();
    expect(other.mode).toBe('legacy');
    expect(other.reason).toMatch(
      /no keyless signer of the policy matches: keyless signature does not verify/,
    );
  });
});

describe('a keyless policy whose trusted root is not readable', () => {
  it('is bad input naming trust.trusted_root, not an internal error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-keyless-root-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'certifications'));
    await using sigstore = await startMockSigstore();
    const bundle = await signKeyless(certificationFor('sqlite'), {
      fulcioURL: sigstore.url,
      rekorURL: sigstore.url,
      identityToken: async () => oidcToken({ iss: ISSUER, sub: WORKFLOW }),
    });
    writeFileSync(join(dir, 'certifications', 'a.json'), JSON.stringify(bundle));
    writeFileSync(join(dir, 'trusted_root.json'), '{ not json');
    policy(dir, WORKFLOW);
    await expect(
      deploymentPolicyFor({
        route: 'sqlite',
        cwd: dir,
        env: {},
        workloadDir: dir,
        connectorVersion: 'v',
        connectors: async () => builtInRouteCode('sqlite'),
      }),
    ).rejects.toThrow(/trust.trusted_root .* is not a readable JSON trusted root/);
  });
});
