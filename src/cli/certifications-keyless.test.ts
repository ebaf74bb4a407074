import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signKeyless } from '../adapters/attestation/keyless.ts';
import type { MockSigstore } from '../adapters/attestation/fixtures/mock-sigstore.ts';
import { oidcToken, startMockSigstore } from '../adapters/attestation/fixtures/mock-sigstore.ts';
import type { PolicyRequest } from './certifications.ts';
import { deploymentPolicyFor } from './certifications.ts';
import { certificationFor } from './fixtures/trusted-record.ts';
import { embeddedEngine } from './engine-roles.ts';
import { builtInRouteCode } from './route-code.ts';

/** The route the records certify: the embedded engine's (its alias), taken from the engine table. */
const ROUTE = embeddedEngine()[0];
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

/** A folder for one test (removed after the tests) with an empty certifications/. */
function workdir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  mkdirSync(join(dir, 'certifications'));
  return dir;
}

/** The route's record, signed keyless by the certify workflow on main through the mock. */
function signedByWorkflow(sigstore: MockSigstore) {
  return signKeyless(certificationFor(ROUTE), {
    fulcioURL: sigstore.url,
    rekorURL: sigstore.url,
    identityToken: async () => oidcToken({ iss: ISSUER, sub: WORKFLOW }),
  });
}

/** What `dpone run` decides for the route from the folder's policy and records. */
function decide(dir: string, extra: Pick<PolicyRequest, 'journal'> = {}) {
  return deploymentPolicyFor({
    route: ROUTE,
    cwd: dir,
    env: {},
    workloadDir: dir,
    connectorVersion: 'v',
    connectors: async () => builtInRouteCode(ROUTE),
    ...extra,
  });
}

describe('dpone run trusts a keyless record only from the workflow identity the policy names', () => {
  it('enforced for certify.yml on main; legacy for another workflow (mocked Fulcio and Rekor, offline verification)', async () => {
    await using sigstore = await startMockSigstore();
    const dir = workdir('dpone-keyless-');
    writeFileSync(join(dir, 'trusted_root.json'), JSON.stringify(sigstore.trustedRoot));
    const bundle = await signedByWorkflow(sigstore);
    writeFileSync(join(dir, 'certifications', `${ROUTE}.sigstore.json`), JSON.stringify(bundle));
    const journal = { kind: 'server-journal', location: 'db', durable: true, reason: 'server' } as const;
    policy(dir, WORKFLOW);
    expect((await decide(dir, { journal })).mode).toBe('enforced');
    policy(dir, WORKFLOW.replace('@refs/heads/main', '@refs/heads/feature'));
    const other = await decide(dir, { journal });
    expect(other.mode).toBe('legacy');
    expect(other.reason).toMatch(
      /no keyless signer of the policy matches: keyless signature does not verify/,
    );
  });
});

describe('a keyless policy whose trusted root is not readable', () => {
  it('is bad input naming trust.trusted_root, not an internal error', async () => {
    const dir = workdir('dpone-keyless-root-');
    await using sigstore = await startMockSigstore();
    const bundle = await signedByWorkflow(sigstore);
    writeFileSync(join(dir, 'certifications', 'a.json'), JSON.stringify(bundle));
    writeFileSync(join(dir, 'trusted_root.json'), '{ not json');
    policy(dir, WORKFLOW);
    await expect(decide(dir)).rejects.toThrow(/trust.trusted_root .* is not a readable JSON trusted root/);
  });
});
