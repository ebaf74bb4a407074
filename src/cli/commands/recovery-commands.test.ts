import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { beforeEach, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../contracts/errors.ts';
import { main } from '../main.ts';
import { embeddedJournalUrl } from '../embedded-journal.test-support.ts';
import { operationIn } from './recovery-operation.test-support.ts';

async function dpone(args: string[], env: Record<string, string> = {}, cwd = process.cwd()) {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await main(
    args,
    {},
    {
      stdout: sink((text) => (stdout += text)),
      stderr: sink((text) => (stderr += text)),
      env: { PATH: process.env.PATH, ...env },
      cwd,
    },
  );
  return { code, stdout, stderr };
}

/** `dpone recovery target-commit <command>` for an operation, by route (workload) or journal URL. */
function recovery(
  command: 'inspect' | 'plan' | 'apply',
  operationId: string,
  source: readonly string[],
  ...extra: string[]
): string[] {
  return ['recovery', 'target-commit', command, '--operation-id', operationId, ...source, ...extra];
}

/** `apply --action <action> --expected-version <version>` on the operation's workload. */
function applyArgs(
  op: { operationId: string; workloadFile: string },
  action: string,
  expected: number,
  ...extra: string[]
): string[] {
  const flags = ['--action', action, '--expected-version', String(expected), ...extra];
  return recovery('apply', op.operationId, ['--route', op.workloadFile], ...flags);
}

/** `inspect|plan --json` for an operation, by route (workload) or by journal URL, parsed. */
async function recoveryJson(
  command: 'inspect' | 'plan',
  operationId: string,
  source: ['--route' | '--journal', string],
) {
  const { stdout } = await dpone(recovery(command, operationId, source, '--json'));
  return JSON.parse(stdout);
}

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const IDENTITY = { DPONE_PLATFORM_IDENTITY: 'platform:oncall@example.com' };

describe('dpone recovery target-commit', () => {
  let op: Awaited<ReturnType<typeof operationIn>>;
  beforeEach(async () => {
    op = await operationIn('COMMIT_UNKNOWN');
  });

  it('inspect shows the entry, the history, the fence and what they imply together', async () => {
    const { code, stdout } = await dpone(recovery('inspect', op.operationId, ['--route', op.workloadFile]));
    expect(code).toBe(0);
    expect(stdout).toContain(`operation   ${op.operationId}`);
    expect(stdout).toMatch(/state\s+COMMIT_UNKNOWN \(version \d+\)/);
    expect(stdout).toMatch(/fence\s+committed \(epoch 1, committed under epoch 1, 2 rows\)/);
    expect(stdout).toContain('COMMITTING -> COMMIT_UNKNOWN');
    expect(stdout).toContain('together    operator-action: the fence now proves the commit');
  });

  it('inspect --json and plan --json follow their documented shapes', async () => {
    const inspect = await dpone(recovery('inspect', op.operationId, ['--route', op.workloadFile], '--json'));
    const view = JSON.parse(inspect.stdout);
    expect(view).toMatchObject({
      schema: 'dpone.recovery.inspect/v1',
      operation_id: op.operationId,
      entry: { state: 'COMMIT_UNKNOWN', lease: null, lease_live: false },
      fence: { status: 'committed', epoch: 1, committed_epoch: 1, rows_written: 2 },
      assessment: { kind: 'operator-action', fence: 'committed' },
    });
    expect(view.history[0]).toMatchObject({ version: 1, kind: 'intent', to_state: 'PREPARING' });
    const plan = await recoveryJson('plan', op.operationId, ['--route', op.workloadFile]);
    expect(plan).toMatchObject({ schema: 'dpone.recovery.plan/v1', recommended: 'resolve-unknown' });
    expect(plan.actions.map((a: { name: string; legal: boolean }) => [a.name, a.legal])).toEqual([
      ['complete-state', false],
      ['mark-not-committed', false],
      ['resolve-unknown', true],
      ['reopen', false],
      ['expire-lease', false],
    ]);
    expect(plan.next_command).toContain(`--action resolve-unknown --expected-version ${view.entry.version}`);
  });

  it('inspect and plan write nothing: journal and target bytes are unchanged', async () => {
    const before = [digest(op.journalPath), digest(op.targetPath)];
    for (const command of ['inspect', 'plan'] as const) {
      for (const where of [
        ['--route', op.workloadFile],
        ['--journal', embeddedJournalUrl(op.journalPath)],
      ]) {
        for (const json of [[], ['--json']]) {
          const result = await dpone(recovery(command, op.operationId, where, ...json));
          expect(result.code).toBe(0);
        }
      }
    }
    expect([digest(op.journalPath), digest(op.targetPath)]).toEqual(before);
    expect(existsSync(join(op.stateDir, 'checkpoints'))).toBe(false);
  });

  it('a malformed --operation-id is bad input (exit 2) naming the flag', async () => {
    const { code, stderr } = await dpone(recovery('plan', 'sha256:XYZ', ['--route', op.workloadFile]));
    expect(code).toBe(2);
    expect(stderr).toContain('--operation-id');
  });

  it('an unknown operation or a missing journal is bad input and creates no journal', async () => {
    const other = `sha256:${'0'.repeat(64)}`;
    expect((await dpone(recovery('inspect', other, ['--route', op.workloadFile]))).code).toBe(2);
    const missing = join(op.dir, 'nope.db');
    const result = await dpone(
      recovery('inspect', op.operationId, ['--journal', embeddedJournalUrl(missing)]),
    );
    expect(result.code).toBe(2);
    expect(existsSync(missing)).toBe(false);
  });

  it('apply is refused without a platform identity, and changes nothing', async () => {
    const before = digest(op.journalPath);
    const { code, stderr } = await dpone(applyArgs(op, 'resolve-unknown', 9));
    expect(code).toBe(EXIT_CODES.DPONE_UNAUTHORIZED);
    expect(stderr).toContain('DPONE_PLATFORM_IDENTITY');
    expect(digest(op.journalPath)).toBe(before);
  });

  it('apply resolves, then completes; a stale version conflicts; the audit lands in the history', async () => {
    const view = await recoveryJson('inspect', op.operationId, ['--route', op.workloadFile]);
    const version = view.entry.version as number;
    const apply = (
      action: string,
      expected: number,
      env: Record<string, string> = IDENTITY,
      extra: string[] = [],
    ) => dpone(applyArgs(op, action, expected, '--reason', 'fence proves commit', '--json', ...extra), env);

    const stale = await apply('resolve-unknown', version - 1);
    expect(stale.code).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_RECOVERY_CONFLICT);
    expect(JSON.parse(stale.stderr).error.code).toBe('DPONE_TARGET_COMMIT_RECOVERY_CONFLICT');

    const resolved = await apply('resolve-unknown', version);
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.stdout)).toMatchObject({
      schema: 'dpone.recovery.apply/v1',
      before: { state: 'COMMIT_UNKNOWN', version },
      // Fence first: the operator's lease (one version), then the audited transition.
      after: { state: 'TARGET_COMMITTED', version: version + 2 },
      audit: {
        actor: 'platform:oncall@example.com',
        action: 'resolve-unknown',
        reason: 'fence proves commit',
        fence_epoch: 2,
      },
    });
    expect((await apply('resolve-unknown', version)).code).toBe(
      EXIT_CODES.DPONE_TARGET_COMMIT_RECOVERY_CONFLICT,
    );

    const identityFile = join(op.dir, 'identity');
    writeFileSync(identityFile, '\nplatform:file-user\n');
    const completed = await apply('complete-state', version + 2, {}, ['--identity-file', identityFile]);
    expect(completed.code).toBe(0);
    expect(JSON.parse(completed.stdout)).toMatchObject({
      after: { state: 'COMPLETE' },
      audit: { actor: 'platform:file-user' },
    });
    expect(existsSync(join(op.stateDir, 'checkpoints', `${op.operationId.slice(7)}.json`))).toBe(true);

    const after = await recoveryJson('inspect', op.operationId, [
      '--journal',
      embeddedJournalUrl(op.journalPath),
    ]);
    const audits = after.history.filter((record: { kind: string }) => record.kind === 'audit');
    expect(
      audits.map((r: { from_state: string; to_state: string }) => `${r.from_state}->${r.to_state}`),
    ).toEqual(['COMMIT_UNKNOWN->TARGET_COMMITTED', 'TARGET_COMMITTED->COMPLETE']);
  });

  it('apply refuses an action that is not legal from the state, and flags carrying secrets', async () => {
    const version = (await recoveryJson('inspect', op.operationId, ['--route', op.workloadFile])).entry
      .version;
    expect((await dpone(applyArgs(op, 'complete-state', version), IDENTITY)).code).toBe(
      EXIT_CODES.DPONE_TARGET_COMMIT_ILLEGAL_TRANSITION,
    );
    expect((await dpone(applyArgs(op, 'drop-table', version), IDENTITY)).code).toBe(2);
    const secret = await dpone(
      applyArgs(op, 'resolve-unknown', version, '--reason', 'password=hunter2'),
      IDENTITY,
    );
    expect(secret.code).toBe(2);
    expect(secret.stderr).not.toContain('hunter2');
  });
});

describe('recovery of COMMITTED_INCOMPLETE', () => {
  it('plan recommends complete-state and apply completes without touching the target', async () => {
    const op = await operationIn('COMMITTED_INCOMPLETE');
    const plan = await recoveryJson('plan', op.operationId, ['--route', op.workloadFile]);
    expect(plan.recommended).toBe('complete-state');
    const target = digest(op.targetPath);
    const version = plan.assessment.version;
    const result = await dpone(applyArgs(op, 'complete-state', version), IDENTITY);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('COMMITTED_INCOMPLETE v');
    expect(digest(op.targetPath)).toBe(target);
  });
});
