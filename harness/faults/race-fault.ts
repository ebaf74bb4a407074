import { join } from 'node:path';
import { NORMAL_LEASE_TTL_MS } from './fault.ts';
import type { FaultModule } from './fault.ts';

/** Every racer parks here, so all are released together once all have started. */
const START_LINE = { point: 'journal.read:before', hit: 1 } as const;

/** race: N workers on one operation, parked at the start line, then released at the same moment. */
export const raceFault: FaultModule<'race'> = {
  kind: 'race',
  leaseTtlMs: () => NORMAL_LEASE_TTL_MS,
  plan: (spec) => {
    const workers = spec.workers ?? 2;
    return [
      {
        localId: String(workers),
        fault: { kind: 'race', workers },
        params: { workers },
        sensitive: workers === 2,
      },
    ];
  },
  async run(run) {
    const count = run.cell.params.workers as number;
    // Each racer's stderr stays in the cell folder: a racer that ends before the start line (the
    // cell then tested nothing) says why there, not only by its exit code.
    const racers = Array.from({ length: count }, (_, index) =>
      run.start(`race-${index + 1}`, {
        stop: START_LINE,
        stderrFile: join(run.dir, `race-${index + 1}.stderr`),
      }),
    );
    try {
      const parked = await Promise.all(racers.map((racer) => racer.parked()));
      for (const racer of racers) racer.resume();
      const attempts = await Promise.all(racers.map((racer) => racer.result()));
      return { attempts, hit: parked.every((event) => event !== null) };
    } finally {
      await Promise.all(racers.map((racer) => racer[Symbol.asyncDispose]()));
    }
  },
};
