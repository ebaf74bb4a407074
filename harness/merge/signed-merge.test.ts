import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signWithKey } from '../../src/adapters/attestation/dsse-bundle.ts';
import { signingKeyFromPem, verifyingKeyFromPem } from '../../src/adapters/attestation/signing-key.ts';
import { parseRecord, verifyWithKey } from '../../src/adapters/attestation/dsse-bundle.ts';
import { EVIDENCE_PREDICATE } from '../../src/contracts/certification.ts';
import { keyPair, writePolicy } from '../../src/cli/fixtures/trusted-record.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { run as merge } from '../cli/certify-merge.ts';
import { capturedIo } from '../gate/fixtures/captured-io.ts';
import { acceptanceCells, sealEvidence } from '../gate/fixtures/certified-evidence.ts';
import { writeFixtureScenarios } from '../gate/fixtures/fixture-plan.ts';
import { evidenceStatement } from '../gate/certification-record.ts';
import { selectShard } from '../plan/planner.ts';
import { planDigest } from '../plan/plan-digest.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const cells = acceptanceCells();
const whole = sealEvidence(cells, { run_id: 'whole' });
const plan = { plan_digest: planDigest(cells.map((cell) => cell.id)), planned_cells: cells.length };
function shardOf(index: number): Evidence {
  const sorted = [...cells].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return sealEvidence(selectShard(sorted, { index, count: 2 }), {
    run_id: `shard-${index}`,
    shard: { index, count: 2 },
    environment: { ...whole.environment, ...plan },
  });
}

const signer = keyPair('ed25519');
const stranger = keyPair('ec');

/** Two shard folders (evidence.json, and evidence.sigstore.json as `sign` says), a policy and a signing key. */
async function project(sign: (shard: Evidence, index: number) => unknown) {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-signed-merge-'));
  dirs.push(dir);
  await writeFixtureScenarios(dir);
  const files: string[] = [];
  for (const index of [1, 2]) {
    const shard = shardOf(index);
    await mkdir(join(dir, `shard-${index}`));
    await writeFile(join(dir, `shard-${index}`, 'evidence.json'), JSON.stringify(shard));
    const signature = sign(shard, index);
    if (signature !== null)
      await writeFile(join(dir, `shard-${index}`, 'evidence.sigstore.json'), JSON.stringify(signature));
    files.push(`shard-${index}/evidence.json`);
  }
  writePolicy(dir, [{ name: 'ci', publicPem: signer.publicPem, routes: ['*'] }]);
  await writeFile(join(dir, 'merge.key'), signer.privatePem);
  const io = capturedIo(dir);
  const code = await merge(
    [...files, '--out', 'merged', '--sign', '--key', 'merge.key', '--policy', 'dpone-policy.yaml'],
    io,
  );
  return { dir, code, out: io.out() };
}

const signedBy = (pem: string) => (shard: Evidence) =>
  signWithKey(evidenceStatement(shard), signingKeyFromPem(pem, 'key'));

describe('certify merge --sign verifies every input’s signature before it signs the merge', () => {
  it('merges shards each signed by a signer of the policy, and signs the merged evidence', async () => {
    const { dir, code, out } = await project(signedBy(signer.privatePem));
    expect(out).not.toContain('merge refused');
    expect(code).toBe(0);
    const bundle = JSON.parse(readFileSync(join(dir, 'merged', 'evidence.sigstore.json'), 'utf8'));
    const parsed = parseRecord(bundle);
    expect(parsed.kind === 'bundle' && parsed.statement.predicateType).toBe(EVIDENCE_PREDICATE);
    expect(verifyWithKey(bundle, verifyingKeyFromPem(signer.publicPem, 'key'))).toBe(true);
  });

  it('refuses a shard without a signature, signed by an unlisted key, over other evidence, or tampered', async () => {
    const cases: [string, (shard: Evidence, index: number) => unknown, RegExp][] = [
      [
        'unsigned',
        (shard, index) => (index === 2 ? null : signedBy(signer.privatePem)(shard)),
        /shard-2\/evidence.json: no evidence.sigstore.json beside it/,
      ],
      [
        'stranger',
        (shard, index) => signedBy(index === 2 ? stranger.privatePem : signer.privatePem)(shard),
        /shard-2\/evidence.json: .*signed by key sha256:[0-9a-f]{64}, which the policy does not list/,
      ],
      [
        'other evidence',
        (shard, index) => signedBy(signer.privatePem)(index === 2 ? shardOf(1) : shard),
        /shard-2\/evidence.json: the signature is over other evidence/,
      ],
      [
        'tampered',
        (shard, index) => {
          const bundle = signedBy(signer.privatePem)(shard) as { dsseEnvelope: { payload: string } };
          if (index === 2) {
            const statement = JSON.parse(Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString());
            statement.predicate.route = 'other-to-other';
            bundle.dsseEnvelope.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
          }
          return bundle;
        },
        /shard-2\/evidence.json: .*does not verify under key/,
      ],
    ];
    for (const [name, sign, reason] of cases) {
      const { dir, code, out } = await project(sign);
      expect(code, name).toBe(1);
      expect(out, name).toMatch(reason);
      expect(out, name).toContain('merge refused');
      expect(existsSync(join(dir, 'merged', 'evidence.json')), name).toBe(false);
    }
  });
});
