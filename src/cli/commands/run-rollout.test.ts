import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../contracts/errors.ts';
import { readFileRow, readFileRows, tableNames } from '../embedded-files.test-support.ts';
import { embeddedJournalUrl } from '../embedded-journal.test-support.ts';
import { embeddedEngine } from '../engine-roles.ts';
import { signedRelease } from '../fixtures/trusted-record.ts';
import type { ExampleCopy } from './example-workload.test-support.ts';
import { EXPECTED_ROWS, dpone, exampleCopy, targetCounts } from './example-workload.test-support.ts';

/**
 * The rollout modes through the real CLI on the embedded example (spec "Migration and rollout"):
 * legacy is the plain write with no journal and no fence; shadow is that same write plus records;
 * enforced without what enforcement needs fails closed naming it.
 */
function withPolicy(example: ExampleCopy, body: string): string {
  const file = join(example.dir, 'dpone-deployment.yaml');
  writeFileSync(file, `deployment: warehouse-test\n${body}`);
  return file;
}

const run = (example: ExampleCopy, extra: string[] = [], env: Record<string, string> = {}) =>
  dpone(['run', '--workload', example.workload, '--json', ...extra], {
    cwd: example.dir,
    env: { DPONE_POLICY: '', DPONE_DEPLOYMENT_POLICY: '', ...env },
  });

function tables(path: string): string[] {
  return existsSync(path) ? tableNames(path) : [];
}

/** The embedded engine, whose route (its alias) the example workload runs. */
const EMBEDDED = embeddedEngine()[0];

const journalPath = (example: ExampleCopy) => join(example.dir, 'data/state/journal.db');
const sha256 = (file: string) => `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;

describe('legacy mode: the plain write, as before any rollout policy', () => {
  it('writes with the workload strategy, creates no journal and no fence, and a retry appends again', async () => {
    const example = exampleCopy();
    const policy = withPolicy(example, 'default: legacy\n');
    const first = await run(example);
    expect(first.exitCode, first.stderr).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result).toMatchObject({
      status: 'written',
      rows_written: EXPECTED_ROWS,
      protection: 'legacy',
      deployment: { mode: 'legacy', entry: 'default', policy_digest: sha256(policy), policy_file: policy },
    });
    expect(result.shadow).toBeUndefined();
    expect(existsSync(journalPath(example))).toBe(false);
    expect(tables(example.targetPath())).toEqual(['events']);
    // Legacy retry semantics: an append retried is appended twice (what enforcement would refuse).
    expect((await run(example)).exitCode).toBe(0);
    expect(targetCounts(example.targetPath())).toEqual({
      rows: 2 * EXPECTED_ROWS,
      distinctIds: EXPECTED_ROWS,
    });
    expect(existsSync(journalPath(example))).toBe(false);
  });

  it('keeps the exit codes of before: a missing source is still 32, and nothing is created', async () => {
    const example = exampleCopy();
    withPolicy(example, 'default: legacy\n');
    const workload = example.variant('missing.yaml', (t) => t.replace('data/source.db', 'data/absent.db'));
    const result = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
    expect(result.exitCode, result.stderr).toBe(EXIT_CODES.DPONE_OBJECT_NOT_FOUND);
    expect(existsSync(journalPath(example))).toBe(false);
  });

  it('the workload entry wins over the route entry, the route entry over the default', async () => {
    const example = exampleCopy();
    withPolicy(
      example,
      `default: enforced\nroutes:\n  ${EMBEDDED}: enforced\nworkloads:\n  orders_to_events: legacy\n`,
    );
    const result = await run(example);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).deployment).toMatchObject({
      mode: 'legacy',
      entry: 'workloads.orders_to_events',
    });
  });
});

describe('enforced mode: only with a trusted certification and a durable journal, else fail closed', () => {
  it('without a trust policy: exit 17, one line naming what is missing, nothing written or journaled', async () => {
    const example = exampleCopy();
    withPolicy(example, `routes:\n  ${EMBEDDED}-to-${EMBEDDED}: enforced\n`);
    const result = await run(example, [], { DPONE_OUTPUT: '' });
    expect(result.exitCode, result.stderr).toBe(EXIT_CODES.DPONE_ENFORCEMENT_UNAVAILABLE);
    const error = JSON.parse(result.stderr.trim().split('\n').at(-1)!).error;
    expect(error.code).toBe('DPONE_ENFORCEMENT_UNAVAILABLE');
    expect(error.message).toMatch(
      new RegExp(
        `routes\\.${EMBEDDED}-to-${EMBEDDED}: enforced\\) asks for enforcement, but no trust policy`,
      ),
    );
    expect(error.message).not.toMatch(/\n/);
    expect(existsSync(example.targetPath())).toBe(false);
    expect(existsSync(journalPath(example))).toBe(false);
  });

  it('a fenceless workload under enforced fails closed naming the missing fence', async () => {
    const example = exampleCopy();
    withPolicy(example, 'default: enforced\n');
    const workload = example.variant('fenceless.yaml', (t) =>
      t.replace('  table: events\n', '  table: events\n  fence: none\n'),
    );
    const result = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
    expect(result.exitCode, result.stderr).toBe(EXIT_CODES.DPONE_ENFORCEMENT_UNAVAILABLE);
    expect(result.stderr).toMatch(/without a fence/);
    expect(existsSync(example.targetPath())).toBe(false);
  });
});

describe('the deployment policy file: located as documented, refused with file:line', () => {
  it('a bad mode is exit 2 naming the file, line and key; nothing runs', async () => {
    const example = exampleCopy();
    const policy = withPolicy(example, `routes:\n  ${EMBEDDED}: sometimes\n`);
    const result = await run(example);
    expect(result.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
    const error = JSON.parse(result.stderr.trim().split('\n').at(-1)!).error;
    expect(error.message).toMatch(new RegExp(`routes\\.${EMBEDDED} must be one of legacy, shadow, enforced`));
    expect(error.location).toMatch(new RegExp(`^${policy}:3:`));
    expect(existsSync(example.targetPath())).toBe(false);
  });

  it('an unknown key and a missing deployment name are refused', async () => {
    const example = exampleCopy();
    writeFileSync(join(example.dir, 'dpone-deployment.yaml'), 'default: legacy\n');
    expect((await run(example)).stderr).toMatch(/deployment must name the deployment/);
    withPolicy(example, 'mode: legacy\n');
    expect((await run(example)).stderr).toMatch(/mode is not a deployment policy key/);
    withPolicy(example, `routes:\n  ${EMBEDDED}_to_${EMBEDDED}: shadow\n`);
    const misspelt = await run(example);
    expect(misspelt.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
    expect(misspelt.stderr).toMatch(new RegExp(`routes\\.${EMBEDDED}_to_${EMBEDDED} is not a route id`));
  });

  it('--deployment-policy and DPONE_DEPLOYMENT_POLICY name a file elsewhere; a named file must exist', async () => {
    const example = exampleCopy();
    const elsewhere = join(example.dir, 'data', 'rollout.yaml');
    writeFileSync(elsewhere, 'deployment: elsewhere\ndefault: legacy\n');
    const byFlag = await run(example, ['--deployment-policy', elsewhere]);
    expect(byFlag.exitCode, byFlag.stderr).toBe(0);
    expect(JSON.parse(byFlag.stdout).deployment).toMatchObject({
      deployment: 'elsewhere',
      policy_file: elsewhere,
    });
    const byEnv = await run(example, [], { DPONE_DEPLOYMENT_POLICY: elsewhere });
    expect(JSON.parse(byEnv.stdout).deployment.deployment).toBe('elsewhere');
    const missing = await run(example, ['--deployment-policy', join(example.dir, 'nope.yaml')]);
    expect(missing.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
    expect(missing.stderr).toMatch(/named by --deployment-policy\) does not exist/);
  });

  it('no policy file: unmanaged, the protocol runs, the journal entry records the mode', async () => {
    const example = exampleCopy();
    const result = await run(example);
    expect(result.exitCode, result.stderr).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(output).toMatchObject({
      status: 'committed',
      protection: 'legacy',
      deployment: { mode: 'unmanaged' },
    });
    const row = readFileRow(journalPath(example), 'SELECT metadata FROM dpone_commit_journal') as {
      metadata: string;
    };
    expect(JSON.parse(row.metadata)).toMatchObject({ deployment_mode: 'unmanaged' });
  });
});

describe('flipping a route from shadow to enforced', () => {
  it('enforces a new operation, but refuses to take over one the shadow write already wrote (17)', async () => {
    const example = exampleCopy();
    signedRelease(example.dir, EMBEDDED);
    const journal = ['--journal', `${embeddedJournalUrl(join(example.dir, 'shared.db'))}?durability=shared`];
    withPolicy(example, `routes:\n  ${EMBEDDED}: shadow\n`);
    expect((await run(example, journal)).exitCode).toBe(0);

    withPolicy(example, `routes:\n  ${EMBEDDED}: enforced\n`);
    const takeover = await run(example, journal);
    expect(takeover.exitCode, takeover.stderr).toBe(EXIT_CODES.DPONE_ENFORCEMENT_UNAVAILABLE);
    expect(takeover.stderr).toMatch(
      /already written by a plain \(committed\) write in shadow mode \(attempt 1\)/,
    );
    expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);

    // The next operation (another interval) runs enforced, with the policy digest in its journal entry.
    const next = example.variant('next.yaml', (t) =>
      t.replace("end: '2026-07-19T00:00:00Z'", "end: '2026-07-19T00:00:01Z'"),
    );
    const enforced = await dpone(['run', '--workload', next, '--json', ...journal], {
      cwd: example.dir,
      env: { DPONE_POLICY: '' },
    });
    expect(enforced.exitCode, enforced.stderr).toBe(0);
    const output = JSON.parse(enforced.stdout);
    expect(output).toMatchObject({ protection: 'enforced', deployment: { mode: 'enforced' } });
    const shared = join(example.dir, 'shared.db');
    const row = readFileRow(shared, 'SELECT metadata FROM dpone_commit_journal') as { metadata: string };
    // And on the attempt's lease record: which policy governed each attempt, not only the first.
    const leases = readFileRows(
      shared,
      "SELECT evidence FROM dpone_commit_journal_history WHERE kind = 'lease'",
    ) as { evidence: string }[];
    expect(JSON.parse(row.metadata)).toMatchObject({
      deployment_mode: 'enforced',
      deployment_policy_digest: output.deployment.policy_digest,
    });
    expect(leases.map((lease) => JSON.parse(lease.evidence).deployment_policy_digest)).toEqual([
      output.deployment.policy_digest,
    ]);
  });
});
