import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../contracts/errors.ts';
import { embeddedJournalUrl } from '../embedded-journal.test-support.ts';
import { embeddedEngine } from '../engine-roles.ts';
import { BUILT_IN_CONNECTORS } from '../engine-table.ts';
import { keyPair, signedRelease, writePolicy } from '../fixtures/trusted-record.ts';
import { resolveRouteId } from '../route-names.ts';
import { EXPECTED_ROWS, exampleCopy, targetCounts } from './example-workload.test-support.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The example's route: the embedded engine into itself (the workload's `route:` names the engine). */
const EMBEDDED = embeddedEngine()[0];
/** Its folder (the connector code a certification's digest binds). */
const FOLDER = BUILT_IN_CONNECTORS[EMBEDDED]!.folder;
const ROUTE_ID = resolveRouteId(EMBEDDED)!.id;
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
  for (const part of ['src', 'connectors', 'bin', 'scenarios', 'package.json', 'package-lock.json'])
    cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  mkdirSync(join(dir, 'harness', 'cli'), { recursive: true });
  cpSync(join(ROOT, 'harness', 'cli', 'commands.ts'), join(dir, 'harness', 'cli', 'commands.ts'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

async function dponeRun(install: string, workload: string, journal: string) {
  return execa(
    process.execPath,
    [join(install, 'bin', 'dpone.js'), 'run', '--workload', workload, '--json', '--journal', journal],
    {
      reject: false,
      env: { DPONE_FAULT_PLAN: '', DPONE_XCOM_PATH: '', DPONE_POLICY: '', DPONE_DEPLOYMENT_POLICY: '' },
    },
  );
}

async function run(install: string, workload: string, journal: string) {
  const result = await dponeRun(install, workload, journal);
  expect(result.stderr).toBe('');
  return JSON.parse(result.stdout) as {
    status: string;
    rows_written: number;
    protection: string;
    protection_reason: string;
    deployment: { mode: string; policy_digest: string | null };
  };
}

/** A run the deployment policy asks to enforce, refused: exit 17 and its one-line reason. */
async function refused(install: string, workload: string, journal: string): Promise<string> {
  const result = await dponeRun(install, workload, journal);
  expect(result.exitCode, result.stderr).toBe(EXIT_CODES.DPONE_ENFORCEMENT_UNAVAILABLE);
  expect(result.stdout).toBe('');
  return (JSON.parse(result.stderr.trim()) as { error: { message: string } }).error.message;
}

/** Opts the example's route into enforcement (dpone-deployment.yaml beside the workload). */
function optIn(dir: string): void {
  writeFileSync(join(dir, 'dpone-deployment.yaml'), `deployment: test\nroutes:\n  ${ROUTE_ID}: enforced\n`);
}

describe('dpone run decides protection from the trust policy beside the workload and the code it runs', () => {
  it('enforced only when the deployment policy opts in and a record signed by a listed key binds the running code; otherwise fail closed (17)', async () => {
    const install = installation();
    const example = exampleCopy();
    dirs.push(example.dir);
    const journal = `${embeddedJournalUrl(join(example.dir, 'journal.db'))}?durability=shared`;
    const signer = signedRelease(example.dir, EMBEDDED);

    // Certified, but no deployment policy opts in: the protocol runs and nothing is claimed.
    const unmanaged = await run(install, example.workload, journal);
    expect(unmanaged).toMatchObject({
      status: 'committed',
      rows_written: EXPECTED_ROWS,
      protection: 'legacy',
    });
    expect(unmanaged.deployment.mode).toBe('unmanaged');
    expect(unmanaged.protection_reason).toMatch(
      /signed by release.*but no deployment policy opts this workload into enforcement/,
    );

    optIn(example.dir);
    const first = await run(install, example.workload, journal);
    expect(first).toMatchObject({ status: 'already-complete', protection: 'enforced' });
    expect(first.deployment).toMatchObject({
      mode: 'enforced',
      policy_digest: expect.stringMatching(/^sha256:/),
    });
    expect(first.protection_reason).toMatch(/signed by release/);

    // The same record under a policy that lists another key: enforcement asked for, not given.
    const other = keyPair('ec');
    writePolicy(example.dir, [{ name: 'someone-else', publicPem: other.publicPem, routes: ['*'] }]);
    expect(await refused(install, example.workload, journal)).toMatch(
      /asks for enforcement, but .*signed by key sha256:[0-9a-f]{64}, which the policy does not list: nothing ran$/,
    );

    // Back to the signer's policy, and one line changed in the installation's copy of the
    // embedded engine's connector code (its engine.ts, in the folder the target's digest covers).
    writePolicy(example.dir, [{ name: 'release', publicPem: signer.publicPem, routes: [ROUTE_ID] }]);
    expect((await run(install, example.workload, journal)).protection).toBe('enforced');
    // A journal not marked durable: enforcement refused, naming the journal.
    // (The journal and the connector are the embedded engine's: the refusals name the engine the test ran.)
    expect(
      await refused(install, example.workload, embeddedJournalUrl(join(example.dir, 'local.db'))),
    ).toMatch(new RegExp(`journal \\(${EMBEDDED}\\) is not durable`));
    appendFileSync(join(install, relative(ROOT, FOLDER), 'engine.ts'), 'export const EDITED = true;\n');
    expect(await refused(install, example.workload, journal)).toMatch(
      new RegExp(`target connector ${EMBEDDED} digest differs: record [0-9a-f]{12}…, running [0-9a-f]{12}…`),
    );
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });
});
