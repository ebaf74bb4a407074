import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEPLOYMENT_POLICY_ENV } from '../../src/contracts/deployment-policy.ts';
import { signalProcess } from '../env/airflow/process-tree.ts';
import type { TryStop } from './airflow-live-cell.ts';
import type { LiveCase } from './airflow-live-cases.ts';
import type { CellRun } from './fault.ts';
import { parityCheck, reportCheck } from './shadow-checks.ts';
import { runShadowReport } from './shadow-fault.ts';

/** Where the first pod is lost: after its write committed and its shadow record was written. */
const STOP: TryStop = { point: 'shadow.record:after', hit: 1 };

/**
 * The environment the cell's `dpone run` tries get: a deployment policy that puts every workload
 * in shadow mode (the policy file is the documented `$DPONE_DEPLOYMENT_POLICY`, as a deployment
 * would set it for its Airflow workers).
 */
export async function shadowPolicyEnv(run: CellRun): Promise<Record<string, string>> {
  const file = join(run.dir, 'rollout-policy.yaml');
  await writeFile(file, 'deployment: certification-airflow\ndefault: shadow\n');
  return { [DEPLOYMENT_POLICY_ENV]: file };
}

/**
 * shadow (issue 36): the production DAG's `dpone run` under a shadow deployment policy; the first
 * pod is lost right after its write and its shadow record, and Airflow's retry writes again, as
 * the legacy path does. Then `dpone shadow report` runs against the cell's journal, and the
 * harness reads the target's own rows: the target must show exactly what legacy writes (two
 * mutations), and the report must list the retried operation with exactly its extra write.
 */
export function shadowRetried(): LiveCase {
  return {
    plans: new Map([[1, STOP]]),
    async drive(cell) {
      const runId = await cell.scheduledRun();
      const ref = await cell.parked(1);
      if (!ref) return { hit: false };
      await signalProcess(ref, 'SIGKILL');
      cell.note(1, `pod-killed@${STOP.point}#${STOP.hit}`);
      await cell.recordEnd(runId, { task_state: 'success', tries: 2 });
      const tries = await cell.attempts();
      const run = cell.run;
      const { attempt: report, figures } = await runShadowReport(run);
      const target = await run.fixture.inspector.snapshot();
      // What legacy writes: every try that returned 0, and the pod lost after its commit.
      const landed = tries.filter((attempt) => attempt.exit_code === 0).length + 1;
      return {
        hit: true,
        attempts: [report],
        checks: [
          parityCheck('shadow', tries, target.mutations, landed),
          reportCheck('shadow', tries.length, target.mutations, figures, false),
        ],
      };
    },
  };
}
