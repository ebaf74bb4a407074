import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  certificationFor,
  keyPair,
  writePolicy,
  writeSigned,
} from '../../src/cli/fixtures/trusted-record.ts';
import { capturedIo } from '../gate/fixtures/captured-io.ts';
import { contractProblems } from '../evidence/contract-schemas.ts';
import { EMBEDDED_ENGINE } from '../routes/route-registry.ts';
import { run as explain } from './certify-explain.ts';

/** The record's route: the embedded engine's own (its alias names it; source and target are that engine). */
const ROUTE = EMBEDDED_ENGINE;

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('certify explain', () => {
  it('shows what a record binds and whether this runtime would trust it, offline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-explain-'));
    dirs.push(dir);
    const signer = keyPair();
    writeSigned(join(dir, 'record.json'), certificationFor(ROUTE), signer.privatePem);
    writePolicy(dir, [{ name: 'release', publicPem: signer.publicPem, routes: [ROUTE] }]);

    const io = capturedIo(dir);
    expect(await explain(['record.json', '--policy', 'dpone-policy.yaml'], io)).toBe(0);
    const out = io.out();
    expect(out).toMatch(/^record {5}sha256:[0-9a-f]{64}/m);
    expect(out).toMatch(/^signed by {2}key sha256:[0-9a-f]{64}/m);
    expect(out).toMatch(new RegExp(`^connector {2}target ${EMBEDDED_ENGINE} sha256:[0-9a-f]{64}`, 'm'));
    expect(out).toMatch(/^suite {6}full sha256:[0-9a-f]{64}/m);
    expect(out).toMatch(
      new RegExp(
        `^trusted: this runtime would run route ${EMBEDDED_ENGINE}-to-${EMBEDDED_ENGINE} enforced`,
        'm',
      ),
    );

    const json = capturedIo(dir);
    expect(await explain(['record.json', '--policy', 'dpone-policy.yaml', '--json'], json)).toBe(0);
    expect(JSON.parse(json.out())).toMatchObject({ schema: 'dpone.certify.explain/v1', trusted: true });
    expect(contractProblems('explain', JSON.parse(json.out()))).toEqual([]);

    writePolicy(dir, [{ name: 'other', publicPem: keyPair('ec').publicPem, routes: ['*'] }]);
    const refused = capturedIo(dir);
    expect(await explain(['record.json', '--policy', 'dpone-policy.yaml'], refused)).toBe(1);
    expect(refused.out()).toMatch(/^NOT trusted: .*which the policy does not list/m);

    const none = capturedIo(dir);
    expect(await explain(['record.json'], { ...none, env: {} })).toBe(1);
    expect(none.out()).toMatch(/^NOT trusted: no trust policy \(none named/m);

    writeFileSync(
      join(dir, 'unsigned.json'),
      JSON.stringify(certificationFor(ROUTE, (p) => ({ ...p, review_only: true }))),
    );
    const unsigned = capturedIo(dir);
    expect(await explain(['unsigned.json', '--policy', 'dpone-policy.yaml'], unsigned)).toBe(1);
    expect(unsigned.out()).toMatch(/^signed by {2}unsigned \(review only\)/m);
    expect(unsigned.out()).toMatch(/REVIEW ONLY: certifies nothing/);
  });
});
