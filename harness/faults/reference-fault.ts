import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { ReferenceFailure } from '../evidence/plan-types.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { NORMAL_LEASE_TTL_MS } from './fault.ts';
import { REFERENCE_RUN } from '../evidence/check-names.ts';

interface ReferenceParams {
  /** The recorded reference run that did not end cleanly (the cell was planned because of it). */
  readonly recorded?: ReferenceFailure;
}

function ending(attempt: Pick<AttemptRecord, 'exit_code' | 'signal' | 'error_code'>): string {
  const code = attempt.error_code ? ` ${attempt.error_code}` : '';
  return attempt.exit_code !== null ? `exit ${attempt.exit_code}${code}` : `signal ${attempt.signal}${code}`;
}

/** A clean run ends exit 0; on a target without a fence, at COMMIT_UNKNOWN (only an operator settles it). */
export function endsClean(
  attempt: Pick<AttemptRecord, 'exit_code' | 'error_code'>,
  fence: 'none' | undefined,
): boolean {
  return fence === 'none' ? attempt.error_code === ERROR_CODES.COMMIT_UNKNOWN : attempt.exit_code === 0;
}

/** The reference cell of a scenario: one draft, sensitive (a variant's clean run is checked too). */
export function referenceDraft(recorded?: ReferenceFailure): CellDraft {
  return {
    localId: 'reference',
    fault: {
      kind: 'reference',
      attempt: 1,
      ...(recorded ? { recorded: ending(recorded), recorded_last_point: recorded.last_point } : {}),
    },
    params: (recorded ? { recorded } : {}) satisfies ReferenceParams,
    sensitive: recorded === undefined,
  };
}

function referenceCheck(run: CellRun, attempt: AttemptRecord, recorded?: ReferenceFailure): CheckRecord {
  const clean = endsClean(attempt, run.cell.workload.fence);
  const expected = run.cell.workload.fence === 'none' ? 'COMMIT_UNKNOWN' : 'exit 0';
  const here = `the reference run ended ${ending(attempt)} after ${attempt.last_point ?? 'no fault point'}`;
  if (recorded) {
    const first = `the recorded reference run ended ${ending(recorded)} after ${recorded.last_point ?? 'no fault point'}, not ${expected}: no cell of this workload could be planned from it`;
    return { name: REFERENCE_RUN, verdict: 'FAIL', detail: `${first}; run again as this cell, ${here}` };
  }
  return clean
    ? { name: REFERENCE_RUN, verdict: 'PASS', detail: `${here}, as a clean run must` }
    : { name: REFERENCE_RUN, verdict: 'FAIL', detail: `${here}, not ${expected}` };
}

/**
 * reference: the clean reference run as a cell: one worker, no fault, to its end, then every check
 * of a cell on what it left (no settle worker: what the run itself did is the evidence). Named in a
 * scenario, it is also run per unsafe variant; and it is planned by itself for every scenario of a
 * workload whose recorded reference run did not end cleanly, so such a build is a FAIL with this
 * evidence (what the run did, what the target shows), never a harness error.
 */
export const referenceFault: FaultModule<'reference'> = {
  kind: 'reference',
  leaseTtlMs: () => NORMAL_LEASE_TTL_MS,
  plan: (_spec, context: PlanContext) => [referenceDraft(context.traces.referenceFailure)],
  async run(run: CellRun): Promise<CellOutcome> {
    const { recorded } = run.cell.params as ReferenceParams;
    const attempt = await run.run('reference');
    return {
      attempts: [attempt],
      hit: true,
      settle: false,
      expectation: { end: run.cell.workload.fence === 'none' ? 'stopped' : 'complete' },
      extraChecks: [referenceCheck(run, attempt, recorded)],
    };
  },
};
