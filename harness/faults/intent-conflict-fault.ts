import { ERROR_CODES, EXIT_CODES } from '../../src/contracts/errors.ts';
import type { CheckRecord } from '../evidence/evidence-types.ts';
import { NORMAL_LEASE_TTL_MS } from './fault.ts';
import type { FaultModule } from './fault.ts';

/** Points that mean the conflicting attempt touched the source, the target or its fence. */
const IO_POINT = /^(source|target|fence)\./;

/**
 * intent-conflict: complete the operation, then run the same operation id with another intent
 * digest. It must exit with the intent-conflict code before any source, target or fence step.
 */
export const intentConflictFault: FaultModule<'intent-conflict'> = {
  kind: 'intent-conflict',
  leaseTtlMs: () => NORMAL_LEASE_TTL_MS,
  plan: () => [
    { localId: 'after-complete', fault: { kind: 'intent-conflict' }, params: {}, sensitive: false },
  ],
  async run(run) {
    const first = await run.run('first');
    const conflict = await run.run('conflicting', { workloadFile: run.fixture.conflictingWorkloadFile });
    const io = (await run.traceOf('conflicting')).filter((o) => IO_POINT.test(o.point));
    const expected = EXIT_CODES[ERROR_CODES.INTENT_CONFLICT];
    const checks: CheckRecord[] = [
      {
        name: 'intent-conflict-refused',
        verdict: conflict.exit_code === expected ? 'PASS' : 'FAIL',
        detail: `conflicting attempt exited ${conflict.exit_code ?? conflict.signal} (expected ${expected})`,
      },
      {
        name: 'intent-conflict-no-io',
        verdict: io.length === 0 ? 'PASS' : 'FAIL',
        detail:
          io.length === 0
            ? 'no source, target or fence point before the refusal'
            : `reached ${io.map((o) => o.point).join(', ')}`,
      },
    ];
    return {
      attempts: [first, conflict],
      hit: true,
      expectation: { end: 'complete', error_code: ERROR_CODES.INTENT_CONFLICT },
      extraChecks: checks,
    };
  },
};
