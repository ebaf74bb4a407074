import { randomBytes } from 'node:crypto';
import { makeFolderDurably } from '../../adapters/state/durable-folder.ts';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { FileStateSink } from '../../adapters/state/file-state-sink.ts';
import { XCOM_PATH_ENV, writeXcom } from '../../adapters/state/xcom-file.ts';
import { DponeError, ERROR_CODES, invalidInput } from '../../contracts/errors.ts';
import { firstUnsafeCharacter } from '../../contracts/safe-text.ts';
import { deriveIntentDigest, deriveOperationId, intentFieldDigests } from '../../contracts/identity.ts';
import { intentDataOf } from '../../contracts/workload.ts';
import type { Workload } from '../../contracts/workload.ts';
import type { ExecutionOutcome } from '../../core/executor.ts';
import type { DeploymentRecord } from '../../core/rollout.ts';
import { refusingEmptyPartitions } from '../../core/empty-partition.ts';
import { RecoveryAwareExecutor } from '../../core/executor.ts';
import { clockFromEnv, faultPointsFromEnv, requestedRuntimeFlaws } from '../../test-hooks/index.ts';
import { UNSAFE_VARIANTS } from '../unsafe-catalogue.ts';
import { parseFlags, required } from '../args.ts';
import { deploymentPolicyFor } from '../certifications.ts';
import type { CliIO, CommandRun } from '../command.ts';
import { describeJournal } from '../journal-durability.ts';
import { journalWarning, openJournal } from '../journal-url.ts';
import { defaultJournalUrl } from '../engine-roles.ts';
import { LazyConnectors } from '../lazy-connectors.ts';
import { checkRequiredSecrets } from '../required-secrets.ts';
import { resolveRoute } from '../route-connectors.ts';
import type { ResolvedRoute } from '../route-connectors.ts';
import { RunInterrupts } from '../run-interrupts.ts';
import { locateWorkloadField, readWorkloadFile } from '../workload-file.ts';
import { boundYoungGeneration } from '../young-generation.ts';
import { plainResult, runFailure, runResult } from './run-result.ts';
import { refuseShadowWritten, resolveRollout } from './run-rollout.ts';
import { runPlain } from './run-plain.ts';

const FLAGS = {
  workload: { type: 'string' },
  journal: { type: 'string' },
  json: { type: 'boolean' },
  xcom: { type: 'string' },
  holder: { type: 'string' },
  policy: { type: 'string' },
  'deployment-policy': { type: 'string' },
} as const;

interface RunPlan {
  readonly workload: Workload;
  readonly operationId: string;
  readonly intentDigest: string;
  readonly journalUrl: string;
  /** Relative file journal paths resolve against this folder. */
  readonly journalBase: string;
  /** Which flag, workload key or default named the journal (said when its file is damaged or refused). */
  readonly journalChosenBy: string;
  readonly holder: string;
}

/**
 * `dpone run --workload FILE [--journal URL] [--json] [--xcom PATH] [--holder NAME] [--policy FILE]
 * [--deployment-policy FILE]`: runs one workload in the rollout mode its deployment policy gives it
 * (--deployment-policy, $DPONE_DEPLOYMENT_POLICY, else dpone-deployment.yaml beside the workload;
 * docs/rollout.md): `legacy`/`shadow` are the plain write (run-plain.ts); `enforced`, and a run no
 * policy governs, go through the recovery-aware executor. Enforcement also needs the trust policy
 * (--policy, $DPONE_POLICY, else dpone-policy.yaml beside the workload) to accept a record for the
 * running code, else exit 17. Exit 0 on `written`, `committed`, `already-complete` or
 * `completed-after-recovery`; otherwise the exit code of the error's code (EXIT_CODES). The XCom
 * (--xcom or DPONE_XCOM_PATH) is written for success and failure alike; failing to write it never
 * changes the outcome.
 */
export const run: CommandRun = async (args, io) => {
  const { values } = parseFlags(args, FLAGS);
  const workload = await readWorkloadFile(required(values.workload, '--workload'), io.cwd);
  if (values.holder !== undefined) checkHolder(values.holder);
  const stateDir = workload.execution.state_dir ?? join(dirname(workload.file), 'dpone-state');
  const plan: RunPlan = {
    workload,
    operationId: deriveOperationId(workload.identity),
    intentDigest: deriveIntentDigest(workload.intent, intentDataOf(workload)),
    journalUrl: values.journal ?? workload.journal ?? defaultJournalUrl(stateDir),
    journalBase: values.journal !== undefined ? io.cwd : dirname(workload.file),
    journalChosenBy:
      values.journal !== undefined
        ? '--journal'
        : workload.journal !== undefined
          ? "the workload's journal"
          : workload.execution.state_dir !== undefined
            ? 'the default journal.db in execution.state_dir'
            : 'the default dpone-state/journal.db beside the workload',
    // Unique per process: a restarted process must take a new lease epoch, never renew a dead one's.
    holder: values.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
  };
  const xcomPath = values.xcom ?? (io.env[XCOM_PATH_ENV] || undefined);
  try {
    // The deployment policy first: a bad file stops the run before anything (exit 2).
    const rollout = await resolveRollout(workload, values['deployment-policy'], io);
    if (rollout.mode === 'legacy' || rollout.mode === 'shadow') {
      const shadow =
        rollout.mode === 'shadow'
          ? {
              journal: describeJournal(
                plan.journalUrl,
                plan.journalBase,
                values.journal ? '--journal' : 'journal',
              ),
              url: plan.journalUrl,
              base: plan.journalBase,
              timeoutMs: rollout.policy.shadowTimeoutMs,
            }
          : undefined;
      const written = await runPlain(
        { ...plan, rollout: rollout.decide(null), ...(shadow ? { shadow } : {}) },
        io,
      );
      io.stdout.write(values.json ? `${JSON.stringify(written)}\n` : plainResult(written));
      if (xcomPath) await writeXcom(xcomPath, written, io.stderr);
      return 0;
    }
    checkRequiredSecrets(workload, plan.journalUrl, io.env);
    await makeStateDir(
      stateDir,
      workload,
      requestedRuntimeFlaws(io.env, UNSAFE_VARIANTS).unsyncedFolders === true,
    );
    const journal = describeJournal(
      plan.journalUrl,
      plan.journalBase,
      values.journal ? '--journal' : 'journal',
    );
    // The route is looked up once; the policy, the executor and the connectors all ask this one.
    const route = await resolveRoute(workload);
    // Decided before anything is written: a bad policy file stops the run here (exit 2).
    const policy = await deploymentPolicyFor({
      route: workload.route,
      cwd: io.cwd,
      env: io.env,
      ...(values.policy !== undefined ? { policyFlag: values.policy } : {}),
      workloadDir: dirname(workload.file),
      connectorVersion: route.connectorVersion,
      connectors: async () => route.connectorCode(),
      journal,
      fenceless: workload.target.fence === 'none',
    });
    // Enforced only where the deployment policy asks AND the trust policy allows; else fail closed.
    const decided = rollout.decide(policy);
    if (decided.record.mode === 'enforced')
      await refuseShadowWritten(
        plan.operationId,
        { description: journal, url: plan.journalUrl, base: plan.journalBase },
        io,
      );
    const outcome = await execute(plan, route, stateDir, io, decided.record);
    const result = {
      ...runResult(
        outcome,
        plan.intentDigest,
        { ...policy, mode: decided.protection, reason: decided.reason },
        journal,
      ),
      deployment: decided.record,
    };
    io.stdout.write(values.json ? `${JSON.stringify(result)}\n` : plainResult(result));
    if (xcomPath) await writeXcom(xcomPath, result, io.stderr);
    return 0;
  } catch (error) {
    if (xcomPath)
      await writeXcom(xcomPath, runFailure(plan.operationId, plan.intentDigest, error), io.stderr);
    throw error;
  }
};

/** The holder name is stored in the journal and printed by `inspect`: a short, printable name. */
function checkHolder(holder: string): void {
  if (holder.trim() === '') throw invalidInput('--holder must not be empty', { field: '--holder' });
  if (holder.length > 128 || firstUnsafeCharacter(holder) !== null)
    throw invalidInput('--holder must be one line of at most 128 printable characters', {
      field: '--holder',
    });
}

/**
 * Before the journal: a state folder that cannot exist is a coded error naming the field. A folder
 * created here is synced into its parent (the default journal lives in it: a power cut must not
 * take the folder and the journal with it); `unsynced` is the `state-folder-unsynced` variant only.
 */
async function makeStateDir(stateDir: string, workload: Workload, unsynced: boolean): Promise<void> {
  try {
    await makeFolderDurably(stateDir, { unsynced });
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code ?? 'error';
    const fields = {
      field: 'execution.state_dir',
      location: await locateWorkloadField(workload.file, 'execution.state_dir'),
    };
    const why = `execution.state_dir ${stateDir} cannot be created (${errno})`;
    if (errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS')
      throw new DponeError(
        ERROR_CODES.PERMISSION_DENIED,
        `${why}: choose a folder this process may write`,
        fields,
        {
          cause: error,
        },
      );
    if (errno === 'ENOSPC' || errno === 'EIO')
      throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, why, fields, { cause: error });
    const hint = errno === 'ENOTDIR' || errno === 'EEXIST' ? ': a part of it is a file, not a folder' : '';
    throw new DponeError(ERROR_CODES.INVALID_INPUT, `${why}${hint}`, fields, { cause: error });
  }
}

async function execute(
  plan: RunPlan,
  route: ResolvedRoute,
  stateDir: string,
  io: CliIO,
  deployment: DeploymentRecord,
): Promise<ExecutionOutcome> {
  const { workload } = plan;
  const clock = clockFromEnv(io.env);
  // A partition of any size streams through in chunks: keep V8's young generation from growing with it.
  boundYoungGeneration();
  // SIGINT/SIGTERM stop the run at the next point where that leaves nothing half done.
  using faults = new RunInterrupts(faultPointsFromEnv(io.env), io.stderr, plan);
  // Resolved from the workload alone (bad fence settings fail here, before the journal is touched).
  const fenceLocation = await route.fenceLocation();
  const flaws = requestedRuntimeFlaws(io.env, UNSAFE_VARIANTS);
  await using journal = await openJournal(plan.journalUrl, {
    cwd: plan.journalBase,
    chosenBy: plan.journalChosenBy,
    env: io.env,
    warn: journalWarning(io),
    ...(flaws.trustHolderClock ? { trustHolderClock: true } : {}),
    ...(flaws.journalSynchronous ? { journalSynchronous: flaws.journalSynchronous } : {}),
  });
  faults.attach(journal);
  // Connect only when the executor first needs the source or target: after it read the journal.
  await using connectors = new LazyConnectors(
    {
      source: `${workload.route}:${workload.source.table}`,
      target: `${workload.route}:${workload.target.table}`,
      capability: route.capability,
      fenceLocation,
    },
    () =>
      route.open({
        env: io.env,
        faults,
        note: (message) => void io.stderr.write(`dpone: note: ${message}\n`),
      }),
  );
  const executor = new RecoveryAwareExecutor({
    journal,
    source: workload.data.partition.allow_empty
      ? connectors.source
      : refusingEmptyPartitions(connectors.source),
    target: connectors.target,
    state: new FileStateSink(stateDir),
    faults,
    clock,
    // The harness's deliberately broken executors answer only under DPONE_HARNESS=1.
    flaws,
  });
  // `return await`: the journal and connectors must stay open until the executor has finished.
  return await executor.execute({
    operationId: plan.operationId,
    intentDigest: plan.intentDigest,
    metadata: {
      workload_id: workload.identity.workload_id,
      target_identity: connectors.target.identity,
      route: workload.route,
      load_strategy: workload.intent.normalized_load_strategy,
      fence_location: fenceLocation,
      intent_fields: intentFieldDigests(workload.intent, intentDataOf(workload)),
      deployment_mode: deployment.mode,
      ...(deployment.policy_digest ? { deployment_policy_digest: deployment.policy_digest } : {}),
    },
    strategy: workload.intent.normalized_load_strategy as 'append' | 'replace-partition',
    partitionColumn: workload.data.partition.column,
    partitionValue: workload.data.partition.value,
    holder: plan.holder,
    leaseTtlMs: workload.execution.lease_ttl_ms,
    ...(workload.target.confirm_complete === false ? { confirmComplete: false } : {}),
  });
}
