import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordDigest } from '../adapters/attestation/dsse-bundle.ts';
import { isDponeError } from '../contracts/errors.ts';
import type { ConnectorCode } from '../contracts/certification.ts';
import { deploymentPolicyFor } from './certifications.ts';
import { certificationFor, keyPair, writePolicy, writeSigned } from './fixtures/trusted-record.ts';
import { embeddedEngine, serverJournalEngine } from './engine-roles.ts';
import { builtInRouteCode } from './route-code.ts';
import { statementBytes } from '../adapters/attestation/dsse-bundle.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
function workdir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-trust-'));
  dirs.push(dir);
  return dir;
}

/**
 * The route a run asks for: the embedded engine's alias (ROUTE_ID in full); another engine's route
 * is what a record for the wrong route certifies. Both taken from the engine table.
 */
const [ROUTE] = embeddedEngine();
const ROUTE_ID = `${ROUTE}-to-${ROUTE}`;
const [OTHER] = serverJournalEngine();
const OTHER_ID = `${OTHER}-to-${OTHER}`;

const signer = keyPair('ed25519');
const DURABLE = { kind: 'server', location: 'db', durable: true, reason: 'a server outlives the worker' };

/** Writes `statement` (the route's record unless given) signed with `privatePem` as `dir`/certifications/`file`. */
function record(
  dir: string,
  file: string,
  statement = certificationFor(ROUTE),
  privatePem = signer.privatePem,
): void {
  writeSigned(join(dir, 'certifications', file), statement, privatePem);
}

/** The decision for a run of ROUTE whose workload sits in `dir` (where the policy is looked for). */
function decide(
  dir: string,
  extra: { env?: NodeJS.ProcessEnv; cwd?: string; connectors?: ConnectorCode[] | null } = {},
) {
  return deploymentPolicyFor({
    route: ROUTE,
    cwd: extra.cwd ?? dir,
    env: extra.env ?? {},
    workloadDir: dir,
    connectorVersion: `${ROUTE}-source/1+${ROUTE}-transactional-commit-marker/2`,
    connectors: async () => (extra.connectors === undefined ? builtInRouteCode(ROUTE) : extra.connectors),
    journal: DURABLE,
  });
}

function trusting(routes: readonly string[] = [ROUTE_ID]): string {
  const dir = workdir();
  writePolicy(dir, [{ name: 'release', publicPem: signer.publicPem, routes }]);
  return dir;
}

describe('dpone run trusts only a signed record that binds the running code (issue 27 attacks)', () => {
  it('a record signed by a listed key, binding this code and the shipped full suite, is enforced', async () => {
    const dir = trusting();
    record(dir, `${ROUTE}.sigstore.json`);
    const decision = await decide(dir);
    expect(decision.mode).toBe('enforced');
    expect(decision.reason).toMatch(/signed by release/);
    expect(decision.certification?.signer).toBe('release');
  });

  it('attack 1: a hand-written record (the old JSON shape, any file name) is not a record', async () => {
    const dir = trusting();
    for (const name of [`${ROUTE}.json`, `${OTHER_ID}.json`])
      writeFileSync(
        join(dir, 'certifications', name),
        JSON.stringify({
          schema: 'dpone.certification/v1',
          route: ROUTE,
          connector_version: 'x',
          runtime_version: '',
          evidence_digest: `sha256:${'0'.repeat(64)}`,
          certified_at: '1970-01-01',
          acceptance: [{ status: 'PASS' }],
        }),
      );
    const decision = await decide(dir);
    expect(decision.mode).toBe('legacy');
    expect(decision.reason).toMatch(
      /not a certification record: neither a Sigstore bundle nor an in-toto statement/,
    );
  });

  it('the working folder’s certifications/ is never read: no policy beside the workload is legacy', async () => {
    const cwd = trusting();
    record(cwd, `${ROUTE}.sigstore.json`);
    const elsewhere = workdir();
    const decision = await decide(elsewhere, { cwd });
    expect(decision.mode).toBe('legacy');
    expect(decision.reason).toContain(`no trust policy (looked for ${join(elsewhere, 'dpone-policy.yaml')}`);
    // DPONE_POLICY (or --policy) names it explicitly.
    expect((await decide(elsewhere, { cwd, env: { DPONE_POLICY: 'dpone-policy.yaml' } })).mode).toBe(
      'enforced',
    );
  });

  it('a record for another route does not enable this one', async () => {
    const dir = trusting(['*']);
    record(dir, `${ROUTE}.json`, certificationFor(OTHER));
    const decision = await decide(dir);
    expect(decision.mode).toBe('legacy');
    expect(decision.reason).toContain(`certifies route ${OTHER_ID}, not ${ROUTE_ID}`);
  });

  it('attack 2: a record of a changed connector is refused, naming the digest that differs', async () => {
    const dir = trusting();
    record(dir, 'a.json');
    const changed = builtInRouteCode(ROUTE)!.map((entry) =>
      entry.role === 'target' ? { ...entry, digest: `sha256:${'1'.repeat(64)}` } : entry,
    );
    const target = changed.find((entry) => entry.role === 'target')!.name;
    const decision = await decide(dir, { connectors: changed });
    expect(decision.mode).toBe('legacy');
    expect(decision.reason).toMatch(
      new RegExp(`target connector ${target} digest differs: record [0-9a-f]{12}…, running 111111111111…`),
    );
  });

  it('attack 3: a record earned on another suite (a toy suite) or on a suite changed since is refused', async () => {
    const dir = trusting();
    record(
      dir,
      'a.json',
      certificationFor(ROUTE, (p) => ({ ...p, suite: { ...p.suite, name: 'default' } })),
    );
    expect((await decide(dir)).reason).toMatch(/earned on suite default, not the shipped full suite/);
    record(
      dir,
      'a.json',
      certificationFor(ROUTE, (p) => ({ ...p, suite: { ...p.suite, digest: `sha256:${'2'.repeat(64)}` } })),
    );
    expect((await decide(dir)).reason).toMatch(/suite digest differs/);
  });

  it('a record missing a mandatory acceptance item by name is refused, naming it', async () => {
    const dir = trusting();
    record(
      dir,
      'a.json',
      certificationFor(ROUTE, (p) => ({
        ...p,
        acceptance: p.acceptance.filter((entry) => entry.item !== 'airflow-one-mutation'),
      })),
    );
    expect((await decide(dir)).reason).toMatch(/not PASS by name: airflow-one-mutation/);
  });

  it('an unsigned record (what certify gate writes for review) is refused', async () => {
    const dir = trusting();
    writeFileSync(join(dir, 'certifications', 'a.json'), JSON.stringify(certificationFor(ROUTE)));
    expect((await decide(dir)).reason).toMatch(/an unsigned record \(review only/);
    record(
      dir,
      'a.json',
      certificationFor(ROUTE, (p) => ({ ...p, review_only: true })),
    );
    expect((await decide(dir)).reason).toMatch(/review-only record/);
  });

  it('a record signed by a key the policy does not list is refused', async () => {
    const dir = trusting();
    record(dir, 'a.json', certificationFor(ROUTE), keyPair('ec').privatePem);
    expect((await decide(dir)).reason).toMatch(
      /signed by key sha256:[0-9a-f]{64}, which the policy does not list/,
    );
  });

  it('a tampered bundle (payload changed after signing) is refused', async () => {
    const dir = trusting();
    const file = join(dir, 'certifications', 'a.json');
    record(
      dir,
      'a.json',
      certificationFor(ROUTE, (p) => ({ ...p, route: OTHER_ID })),
    );
    const bundle = JSON.parse(readFileSync(file, 'utf8'));
    bundle.dsseEnvelope.payload = statementBytes(certificationFor(ROUTE)).toString('base64');
    writeFileSync(file, JSON.stringify(bundle));
    expect((await decide(dir)).reason).toMatch(
      /does not verify under key sha256:[0-9a-f]{64} \(the record was changed after signing\)/,
    );
  });

  it('a signer not allowed the route, and a revoked record, are refused', async () => {
    const dir = trusting([OTHER_ID]);
    record(dir, 'a.json');
    expect((await decide(dir)).reason).toContain(`signer release may not enable route ${ROUTE_ID}`);
    const revokedDir = workdir();
    const statement = certificationFor(ROUTE);
    writePolicy(
      revokedDir,
      [{ name: 'release', publicPem: signer.publicPem, routes: ['*'] }],
      [{ record: recordDigest(statementBytes(statement)), reason: 'signed from a doctored harness' }],
    );
    record(revokedDir, 'a.json', statement);
    expect((await decide(revokedDir)).reason).toMatch(/is revoked: signed from a doctored harness/);
  });

  it('the record that got furthest names the reason; one good record among bad ones is enforced', async () => {
    const dir = trusting();
    writeFileSync(join(dir, 'certifications', 'a-junk.json'), '{ not json');
    record(dir, 'b-other-key.json', certificationFor(ROUTE), keyPair().privatePem);
    record(dir, 'c-other-route.json', certificationFor(OTHER));
    expect((await decide(dir)).reason).toContain(
      `c-other-route.json: the record certifies route ${OTHER_ID}`,
    );
    record(dir, 'd-good.json');
    expect((await decide(dir)).mode).toBe('enforced');
  });

  it('a policy that is not valid is bad input naming file:line and the key', async () => {
    const dir = workdir();
    writeFileSync(
      join(dir, 'dpone-policy.yaml'),
      `trust:\n  signers:\n    - name: a\n      routes: [${ROUTE}]\n      public_key: a.pub\n      keyless: { issuer: x, identity: y }\n`,
    );
    const error = await decide(dir).catch((caught: unknown) => caught);
    expect(isDponeError(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(
      /trust.signers\[0\] must name exactly one of public_key and keyless/,
    );
    expect((error as { fields: { location?: string } }).fields.location).toMatch(/dpone-policy.yaml:3:\d+$/);
    writeFileSync(join(dir, 'k.pub'), 'not a key');
    writeFileSync(
      join(dir, 'dpone-policy.yaml'),
      `trust:\n  signers:\n    - { name: a, routes: [${ROUTE}], public_key: k.pub }\n`,
    );
    await expect(decide(dir)).rejects.toThrow(/trust.signers\[0\].public_key is not a PEM public key/);
    writeFileSync(join(dir, 'dpone-policy.yaml'), 'trust:\n  signers: []\n  certifications: x\n');
    await expect(decide(dir)).rejects.toThrow(/trust.certifications is not a policy key/);
    mkdirSync(join(dir, 'named'));
    await expect(decide(workdir(), { env: { DPONE_POLICY: join(dir, 'missing.yaml') } })).rejects.toThrow(
      /named by DPONE_POLICY\) does not exist/,
    );
  });
});
