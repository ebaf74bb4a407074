import type { Workload } from '../../contracts/workload.ts';
import { ERROR_CODES, RETRY_SAFE_CODES, isDponeError } from '../../contracts/errors.ts';
import type { JournalDescription } from '../../core/deployment-policy.ts';
import { refusingEmptyPartitions } from '../../core/empty-partition.ts';
import type { RolloutDecision } from '../../core/rollout.ts';
import { ShadowRecorder } from '../../core/shadow-recorder.ts';
import type { ShadowAttempt, ShadowJournal, ShadowOutcome } from '../../ports/shadow-journal.ts';
import type { FaultPoints } from '../../ports/fault-points.ts';
import type { RuntimeFlaws } from '../../ports/unsafe-variants.ts';
import { faultPointsFromEnv, requestedRuntimeFlaws } from '../../test-hooks/index.ts';
import { UNSAFE_VARIANTS } from '../unsafe-catalogue.ts';
import type { CliIO } from '../command.ts';
import type { RouteConnectors } from '../route-connectors.ts';
import { openPlainRouteConnectors } from '../route-connectors.ts';
import { RunInterrupts } from '../run-interrupts.ts';
import { openShadowJournal } from '../shadow-journal-url.ts';
import { RUN_SCHEMA } from './run-result.ts';

/** What `dpone run --json` prints after a legacy or shadow run's plain write (schemas/run.v1.json). */
export interface PlainRunResult {
  readonly schema: typeof RUN_SCHEMA;
  readonly operation_id: string;
  readonly intent_digest: string;
  /** The plain write returned: the rows are in the target (how many times, only the target says). */
  readonly status: 'written';
  readonly rows_written: number;
  readonly protection: 'legacy';
  readonly protection_reason: string;
  readonly deployment: RolloutDecision['record'];
  /** Shadow mode only: what the shadow journal recorded of this attempt (null fields: nothing). */
  readonly shadow?: {
    readonly journal: string;
    readonly try: number | null;
    readonly would_decide: string | null;
  };
}

export interface PlainRun {
  readonly workload: Workload;
  readonly operationId: string;
  readonly intentDigest: string;
  readonly holder: string;
  readonly rollout: RolloutDecision;
  /** Shadow mode: where its records go, and the bound on each call. */
  readonly shadow?: {
    readonly journal: JournalDescription;
    readonly url: string;
    readonly base: string;
    readonly timeoutMs: number;
  };
}

/** The workload's strategy applied by the plain target in one transaction: the rows it wrote. */
async function plainWrite(
  run: PlainRun,
  connectors: RouteConnectors,
  state: { began: boolean },
): Promise<number> {
  const { workload } = run;
  const source = workload.data.partition.allow_empty
    ? connectors.source
    : refusingEmptyPartitions(connectors.source);
  await using rows = await source.read({
    partitionColumn: workload.data.partition.column,
    partitionValue: workload.data.partition.value,
  });
  state.began = true;
  const receipt = await connectors.target.mutate({
    fence: { operationId: run.operationId, epoch: 0, intentDigest: run.intentDigest, holder: run.holder },
    strategy: workload.intent.normalized_load_strategy as 'append' | 'replace-partition',
    partitionColumn: workload.data.partition.column,
    partitionValue: workload.data.partition.value,
    rows,
  });
  return receipt.rowsWritten;
}

/** An error after which the plain write cannot have landed, versus one that leaves it unknown. */
function outcomeOf(error: unknown, began: boolean): ShadowOutcome {
  if (!began) return 'failed';
  if (isDponeError(error) && (RETRY_SAFE_CODES.has(error.code) || error.code === ERROR_CODES.DATA_REJECTED))
    return 'failed';
  return 'unknown';
}

/**
 * The legacy write (rollout modes `legacy` and `shadow`): the workload's strategy applied by the
 * route's plain (fenceless) target in one transaction, no protocol journal and no fence; errors
 * and exit codes are the connector's own, as before any rollout policy existed. In shadow mode
 * the attempt is recorded around it, each record bounded and never able to change the write.
 */
export async function runPlain(run: PlainRun, io: CliIO): Promise<PlainRunResult> {
  const { workload } = run;
  using faults = new RunInterrupts(faultPointsFromEnv(io.env), io.stderr, run);
  const warn = (line: string) => io.stderr.write(`${line}\n`);
  await using journal = run.shadow ? await openShadowJournal(run.shadow, warn, true, io.env) : null;
  const recorder = new ShadowRecorder(journal, run.shadow?.timeoutMs ?? 1, warn);
  const connectors = await openPlainRouteConnectors(workload, { env: io.env, faults });
  try {
    // The harness's deliberately broken shadow modes answer only under DPONE_HARNESS=1.
    const flaws = requestedRuntimeFlaws(io.env, UNSAFE_VARIANTS);
    return await write(run, connectors, { recorder, journal, faults, flaws });
  } finally {
    await connectors.source.close().catch(() => undefined);
    await connectors.target.close().catch(() => undefined);
  }
}

interface WriteContext {
  readonly recorder: ShadowRecorder;
  readonly journal: ShadowJournal | null;
  readonly faults: FaultPoints;
  readonly flaws: RuntimeFlaws;
}

async function write(
  run: PlainRun,
  connectors: RouteConnectors,
  { recorder, journal, faults, flaws }: WriteContext,
): Promise<PlainRunResult> {
  const { workload } = run;
  const attempt: ShadowAttempt | null = run.shadow
    ? await recorder.begin({
        operationId: run.operationId,
        intentDigest: run.intentDigest,
        workloadId: workload.identity.workload_id,
        route: workload.route,
        targetIdentity: connectors.target.identity,
        partitionColumn: workload.data.partition.column,
        partitionValue: workload.data.partition.value,
        holder: run.holder,
        policyDigest: run.rollout.record.policy_digest ?? 'none',
        startedAt: new Date().toISOString(),
      })
    : null;
  const state = { began: false };
  // Unsafe variant shadow-blocks-retry: shadow mode enforcing (no write) where it must only measure.
  const blocked =
    flaws.shadowBlocksRetry === true && /^refused: already committed/.test(attempt?.wouldDecide ?? '');
  let rowsWritten = 0;
  try {
    if (!blocked) rowsWritten = await plainWrite(run, connectors, state);
  } catch (error) {
    await recorder.end(attempt, outcomeOf(error, state.began), null);
    throw error;
  }
  if (attempt !== null) {
    await faults.hit('shadow.record:before');
    // Unsafe variant shadow-unrecorded-write: the write that returned is never recorded.
    if (flaws.shadowUnrecordedWrite !== true) await recorder.end(attempt, 'committed', rowsWritten);
    await faults.hit('shadow.record:after');
  }
  return {
    schema: RUN_SCHEMA,
    operation_id: run.operationId,
    intent_digest: run.intentDigest,
    status: 'written',
    rows_written: rowsWritten,
    protection: 'legacy',
    protection_reason: run.rollout.reason,
    deployment: run.rollout.record,
    ...(run.shadow
      ? {
          shadow: {
            journal: journal?.location ?? run.shadow.journal.location,
            try: attempt?.tryNumber ?? null,
            would_decide: attempt?.wouldDecide ?? null,
          },
        }
      : {}),
  };
}
