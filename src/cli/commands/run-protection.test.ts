import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { certificationFor, keyPair, writePolicy, writeSigned } from '../fixtures/trusted-record.ts';
import { EXPECTED_ROWS, exampleCopy, targetCounts } from './example-workload.test-support.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/**
 * A second installation of this runtime (what the hostile reviewer had: a second clone):
 * the package's own files copied, its dependencies linked. Its digests equal this checkout's until
 * a file in it changes.
 */
function installation(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-install-'));
  dirs.push(dir);
  for (const part of ['src', 'bin', 'scenarios', 'package.json', 'package-lock.json'])
    cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  mkdirSync(join(dir, 'harness', 'cli'), { recursive: true });
  cpSync(join(ROOT, 'harness', 'cli', 'commands.ts'), join(dir, 'harness', 'cli', 'commands.ts'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function run(install: string, workload: string, journal: string) {
  const result = await execa(
    process.execPath,
    [join(install, 'bin', 'dpone.js'), 'run', '--workload', workload, '--json', '--journal', journal],
    { reject: false, env: { DPONE_FAULT_PLAN: '', DPONE_XCOM_PATH: '', DPONE_POLICY: '' } },
  );
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as {
    status: string;
    rows_written: number;
    protection: string;
    protection_reason: string;
  };
}

describe('dpone run decides protection from the trust policy beside the workload and the code it runs', () => {
  it('enforced under a record signed by a listed key; legacy under another key; legacy once one line of the SQLite target changes', async () => {
    const install = installation();
    const example = exampleCopy();
    dirs.push(example.dir);
    const journal = `sqlite://${join(example.dir, 'journal.db')}?durability=shared`;
    const signer = keyPair('ed25519');
    writePolicy(example.dir, [
      { name: 'release', publicPem: signer.publicPem, routes: ['sqlite-to-sqlite'] },
    ]);
    writeSigned(
      join(example.dir, 'certifications', 'sqlite.sigstore.json'),
      certificationFor('sqlite'),
      signer.privatePem,
    );

    const first = await run(install, example.workload, journal);
    expect(first).toMatchObject({ status: 'committed', rows_written: EXPECTED_ROWS, protection: 'enforced' });
    expect(first.protection_reason).toMatch(/signed by release/);

    // The same record under a policy that lists another key.
    const other = keyPair('ec');
    writePolicy(example.dir, [{ name: 'someone-else', publicPem: other.publicPem, routes: ['*'] }]);
    const second = await run(install, example.workload, journal);
    expect(second).toMatchObject({ status: 'already-complete', protection: 'legacy' });
    expect(second.protection_reason).toMatch(
      /signed by key sha256:[0-9a-f]{64}, which the policy does not list/,
    );

    // Back to the signer's policy, and one line changed in the installation's SQLite target.
    writePolicy(example.dir, [
      { name: 'release', publicPem: signer.publicPem, routes: ['sqlite-to-sqlite'] },
    ]);
    expect((await run(install, example.workload, journal)).protection).toBe('enforced');
    appendFileSync(
      join(install, 'src/adapters/connectors/sqlite/sqlite-target.ts'),
      'export const EDITED = true;\n',
    );
    const changed = await run(install, example.workload, journal);
    expect(changed.protection).toBe('legacy');
    expect(changed.protection_reason).toMatch(
      /target connector sqlite digest differs: record [0-9a-f]{12}…, running [0-9a-f]{12}…/,
    );
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });
});
