import { ERROR_CODES, EXIT_CODES } from '../../src/contracts/errors.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import { NORMAL_LEASE_TTL_MS } from './fault.ts';
import type { FaultModule } from './fault.ts';
import { storageCheck } from '../routes/storage-seal.ts';
import { probeSeal } from './seal-probe.ts';
import { INTENT_CONFLICT_REFUSED, STORAGE_UNTOUCHED } from '../evidence/check-names.ts';

/** Points that mean the conflicting attempt touched the source, the target or its fence. */
const IO_POINT = /^(source|target|fence)\./;

/**
 * intent-conflict: complete the operation, then run the same operation id with another intent
 * digest while the route keeps the source, target and fence storage unreachable in a way the
 * harness watches (CellFixture.sealStorage). The attempt must still exit with the intent-conflict
 * code, and the storage must show it untouched: the decision is the storage's, not the worker's
 * trace (kept in the check's detail for diagnosis). The seal itself is believed only once a probe
 * that reads the fence from the target under it was seen by it and could not read the fence as
 * committed (seal-probe.ts), and, for a seal of declared state files, once the honest attempt was
 * seen using every declared file (state-files-use.ts). A route that cannot seal its storage, or
 * whose seal fails either test, leaves the cell UNVERIFIED.
 */
export const intentConflictFault: FaultModule<'intent-conflict'> = {
  kind: 'intent-conflict',
  leaseTtlMs: () => NORMAL_LEASE_TTL_MS,
  plan: () => [
    { localId: 'after-complete', fault: { kind: 'intent-conflict' }, params: {}, sensitive: true },
  ],
  async run(run) {
    // Which declared state files the honest attempt used (a seal of names it never used seals nothing).
    const use = run.fixture.watchStateUse ? await run.fixture.watchStateUse() : null;
    let unused: readonly string[] = [];
    let first: AttemptRecord;
    try {
      first = await run.run('first');
    } finally {
      if (use) unused = await use.release();
    }
    const seal = run.fixture.sealStorage
      ? await run.fixture.sealStorage(run.fixture.conflictingWorkloadFile)
      : null;
    let conflict: AttemptRecord;
    let touched: readonly string[] = [];
    try {
      conflict = await run.run('conflicting', {
        workloadFile: seal?.workloadFile ?? run.fixture.conflictingWorkloadFile,
      });
    } finally {
      if (seal) touched = await seal.release();
    }
    const io = (await run.traceOf('conflicting')).filter((o) => IO_POINT.test(o.point)).map((o) => o.point);
    // Untouched means something only if the seal sees what goes to the target: probed afterwards.
    const probe =
      seal && touched.length === 0 && run.fixture.sealStorage
        ? await probeSeal(run, run.fixture.sealStorage)
        : null;
    const expected = EXIT_CODES[ERROR_CODES.INTENT_CONFLICT];
    const checks: CheckRecord[] = [
      {
        name: INTENT_CONFLICT_REFUSED,
        verdict: conflict.exit_code === expected ? 'PASS' : 'FAIL',
        detail: `conflicting attempt exited ${conflict.exit_code ?? conflict.signal} (expected ${expected})`,
      },
      seal && unused.length > 0 && touched.length === 0
        ? {
            name: STORAGE_UNTOUCHED,
            verdict: 'UNVERIFIED',
            detail: `${seal.sealed}: the target declares ${unused.join(', ')} as its state, which the honest attempt never opened, created or wrote: a seal of files the connector does not use cannot vouch for the conflicting attempt`,
          }
        : seal && probe && !probe.verified
          ? { name: STORAGE_UNTOUCHED, verdict: 'UNVERIFIED', detail: `${seal.sealed}: ${probe.detail}` }
          : seal
            ? storageCheck(seal, touched, io, probe?.detail)
            : {
                name: STORAGE_UNTOUCHED,
                verdict: 'UNVERIFIED',
                detail: `route ${run.cell.route} cannot seal its source, target and fence storage, and the worker's own trace does not decide this`,
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
