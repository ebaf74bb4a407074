import type { RecoveryActionName } from '../../src/core/recovery-actions.ts';
import { RECOVERY_ACTIONS } from '../../src/core/recovery-actions.ts';
import { FAKETIME_MISSING, findFaketimeLibrary } from '../env/faketime.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import { challengerRaces, holderDies, holderJumps, operatorApplies } from './clock-skew-cells.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';

type ClockCase = 'holder-dies' | 'jump' | 'challenger' | 'operator';

interface ClockParams {
  readonly case: ClockCase;
  readonly offset: string;
  readonly at?: TraceOccurrence;
  readonly action?: RecoveryActionName;
}

const HOLDER_OFFSETS = ['+5s', '-5s', '+365d', '-365d'];
const CHALLENGER_OFFSETS = ['+1h', '+365d'];
const JUMPS = ['+1h', '-1h'];
/** Where the operator meets a live commit: just before the mutation, and inside its transaction. */
const OPERATOR_POINTS: readonly TraceOccurrence[] = [
  { point: 'cas:PREPARED->COMMITTING:after', hit: 1 },
  { point: 'target.commit:before', hit: 1 },
];
/** A journal transition (the lease rides on the create) or the target's commit. */
const TRANSITION = /^(journal\.create|lease\.acquire|cas:.*|target\.commit):after$/;

function planClockSkew(spec: FaultSpecOf<'clock-skew'>, { traces }: PlanContext): CellDraft[] {
  const transitions = traces.clean.filter((at) => TRANSITION.test(at.point));
  const drafts: CellDraft[] = [];
  const draft = (localId: string, params: ClockParams, sensitiveTo: readonly string[] = []): CellDraft => ({
    localId,
    fault: {
      kind: 'clock-skew',
      phase: params.case,
      offset: params.offset,
      ...(params.at ? { point: params.at.point, hit: params.at.hit } : {}),
      ...(params.action ? { action: params.action } : {}),
    },
    params: { ...params },
    sensitive: sensitiveTo.length > 0,
    ...(sensitiveTo.length > 0 ? { sensitiveTo } : {}),
  });
  for (const offset of spec.holder_offsets ?? HOLDER_OFFSETS)
    for (const at of transitions)
      drafts.push(
        draft(`holder-dies/${offset}/${occurrenceKey(at)}`, { case: 'holder-dies', offset, at }, [
          'trust-holder-clock',
        ]),
      );
  for (const jump of spec.jumps ?? JUMPS)
    drafts.push(draft(`jump/${jump}`, { case: 'jump', offset: jump }, ['trust-holder-clock']));
  for (const offset of spec.challenger_offsets ?? CHALLENGER_OFFSETS)
    for (const at of transitions)
      drafts.push(draft(`challenger/${offset}/${occurrenceKey(at)}`, { case: 'challenger', offset, at }));
  if (spec.operator !== false) {
    const offset = spec.operator_offset ?? '+1h';
    for (const at of OPERATOR_POINTS)
      for (const action of RECOVERY_ACTIONS)
        drafts.push(
          draft(
            `operator/${action}/${occurrenceKey(at)}`,
            { case: 'operator', offset, at, action },
            action === 'mark-not-committed' ? ['recovery-without-fence'] : [],
          ),
        );
  }
  return drafts;
}

async function runClockSkew(run: CellRun): Promise<CellOutcome> {
  const params = run.cell.params as unknown as ClockParams;
  const library = findFaketimeLibrary()!;
  switch (params.case) {
    case 'holder-dies':
      return holderDies(run, library, params.at!, params.offset);
    case 'jump':
      return holderJumps(run, library, params.offset);
    case 'challenger':
      return challengerRaces(run, library, params.at!, params.offset);
    case 'operator':
      return operatorApplies(run, library, params.at!, params.action!, params.offset);
  }
}

/**
 * clock-skew: Jepsen's clock nemesis for leases, through libfaketime. A holder whose clock runs
 * ahead or behind (seconds, a year) dies at every journal transition and a normal retrier must
 * finish within what the journal's clock promises (`lease-bound`); a holder's clock jumps mid-run;
 * a challenger with a skewed clock races a live holder at every transition; an operator with a
 * skewed clock applies each recovery action during a live commit, and what its audit states must
 * hold in the target (`audit-truth`). The runner adds the usual checks: one mutation, parity.
 */
export const clockSkewFault: FaultModule<'clock-skew'> = {
  kind: 'clock-skew',
  leaseTtlMs: (spec) => spec.lease_ttl_ms ?? TAKEOVER_LEASE_TTL_MS,
  plan: planClockSkew,
  run: runClockSkew,
  unavailableIn: () => (findFaketimeLibrary() === null ? FAKETIME_MISSING : null),
};
