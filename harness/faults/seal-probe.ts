import type { CellRun } from './fault.ts';
import type { StorageSeal } from '../routes/storage-seal.ts';
import { cellOperationId, inspect } from './loss-observation.ts';

/** Whether a route's storage seal stands between a connector and its target, as seen by the seal itself. */
export interface SealProbe {
  readonly verified: boolean;
  readonly detail: string;
}

/**
 * A seal is believed only once it was seen working. Under the same seal the conflicting attempt ran
 * in, `recovery target-commit inspect` (the operator's read-only CLI, which reads the operation's
 * fence from the target through the route's own connector, in a process started as the workers
 * are, with the cell's environment) must be seen by the seal: an access it
 * watched (an open of a placeholder, a connection to the listener). A seal that saw nothing of a
 * read that went to the target (a plug-in declaring files its connector never opens, while its
 * server stays reachable) cannot vouch that the conflicting attempt left the target alone; nor can
 * a seal under which the probe still read the completed operation's fence as committed (a seal of
 * the database's log only, its main file left readable).
 */
export async function probeSeal(
  run: CellRun,
  seal: (workloadFile: string) => Promise<StorageSeal>,
): Promise<SealProbe> {
  const operationId = await cellOperationId(run);
  const sealed = await seal(run.fixture.conflictingWorkloadFile);
  // Spawned as the workers are: a connector that finds its server in the process environment
  // reaches it here as it would in the conflicting attempt, not only through the CLI's env.
  const probed = await inspect(run, operationId, sealed.workloadFile, { spawned: true }).then(
    (reading) => ({ reading }),
    () => ({ reading: null }),
  );
  const touched = await sealed.release();
  const reading = probed.reading;
  const fence = reading?.assessment
    ? `its fence read as ${reading.assessment.fence}`
    : 'it could not read the fence';
  // The operation completed before the seal: a probe that still reads its fence as committed
  // reached the target around the seal (a seal of some of its files, the rest left in place).
  if (reading?.assessment?.fence === 'committed')
    return {
      verified: false,
      detail: `a probe under the seal still read the operation's fence as committed${touched.length > 0 ? ` (the seal saw ${touched.join('; ')})` : ''}: the target stays reachable around the seal, so it cannot vouch for the conflicting attempt`,
    };
  return touched.length > 0
    ? { verified: true, detail: `the seal saw a probe that reads the fence (${touched.join('; ')})` }
    : {
        verified: false,
        detail: `the seal saw nothing of a probe that reads the operation's fence from the target (${fence}): it does not stand between the connector and its target, so it cannot vouch for the conflicting attempt`,
      };
}
