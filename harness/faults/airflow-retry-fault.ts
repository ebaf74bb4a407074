import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttemptRecord } from '../evidence/evidence-types.ts';
import { deriveSeed, randomInt, seededRandom } from '../data/seeded-random.ts';
import { occurrenceKey, parseOccurrence } from '../plan/trace.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import type { CellRun, FaultModule } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';

/** KubernetesPodOperator reads `/airflow/xcom/return.json`; here it lives in the cell folder. */
export function xcomFile(cellDir: string): string {
  return join(cellDir, 'airflow', 'xcom', 'return.json');
}

/** What happens to one try: the task process is lost at a point, or it succeeds but its XCom is lost. */
type TryLoss = { readonly at: string } | { readonly xcom: 'lost' } | null;

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** One try: a new process; lost at its loss point (SIGKILL) when it gets there. */
async function runTry(
  run: CellRun,
  role: string,
  loss: TryLoss,
): Promise<{ record: AttemptRecord; ok: boolean }> {
  const xcom = xcomFile(run.dir);
  await rm(xcom, { force: true });
  const extraArgs = ['--xcom', xcom];
  if (loss && 'at' in loss) {
    const { record, hit } = await run.killAt(role, parseOccurrence(loss.at), { extraArgs });
    return { record, ok: !hit && record.exit_code === 0 && (await exists(xcom)) };
  }
  const record = await run.run(role, { extraArgs });
  const ok = record.exit_code === 0 && (await exists(xcom)) && !(loss && 'xcom' in loss);
  return { record, ok };
}

/**
 * airflow-retry: Airflow's contract with retries=3, emulated: up to `tries` tries, each a new
 * process; a try is lost at a seeded point (SIGKILL) or succeeds while its XCom is lost (Airflow
 * then fails it and retries); the XCom file is deleted before every try. The last try is clean.
 * Correctness may not depend on the XCom: the end must be COMPLETE with exactly one mutation.
 * On a target without a fence (capability none) every try that began the mutation, or found it
 * begun, must stop at COMMIT_UNKNOWN: the tries are then replay-unknown's cells (a try that
 * replays lands a second mutation), and the runner's operator settles the outcome afterwards.
 */
export const airflowRetryFault: FaultModule<'airflow-retry'> = {
  kind: 'airflow-retry',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: (spec, { seed, traces, fence }) => {
    const tries = spec.tries ?? 4;
    return Array.from({ length: spec.cases ?? 3 }, (_, index) => {
      const random = seededRandom(deriveSeed(seed, `airflow-retry-${index + 1}`));
      const losses: TryLoss[] = Array.from({ length: tries }, (_, attempt) => {
        if (attempt === tries - 1 || traces.clean.length === 0) return null;
        if (random() < 0.2) return { xcom: 'lost' };
        const at: TraceOccurrence = traces.clean[randomInt(random, 0, traces.clean.length - 1)]!;
        return { at: occurrenceKey(at) };
      });
      return {
        localId: `seed${seed}-${index + 1}`,
        fault: { kind: 'airflow-retry', workers: tries, losses },
        params: { losses },
        sensitive: fence === 'none',
      };
    });
  },
  async run(run) {
    await mkdir(join(run.dir, 'airflow', 'xcom'), { recursive: true });
    const losses = run.cell.params.losses as TryLoss[];
    const attempts: AttemptRecord[] = [];
    for (const [index, loss] of losses.entries()) {
      if (index > 0) await run.expireLeases(); // Airflow's retry_delay outlasts the lease
      const { record, ok } = await runTry(run, `airflow-try-${index + 1}`, loss);
      attempts.push(record);
      if (ok) break;
    }
    return { attempts, hit: true };
  },
};
