import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { ServerKill } from '../routes/server-control.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, PlanContext } from './fault.ts';
import { unverifiedOutcome } from './fault.ts';

/**
 * Two operations on one partition, a target restart between them (issue 29): operation Y (the
 * cell's) parks at a point P of its swap or settle, operation X (another id: another release of the
 * same load, the same rows) runs to its end meanwhile, Y goes on to the next point Q of the window
 * (P itself for the last), the target server is SIGKILLed there, Y is released into the dead
 * server, the server starts again; then Y's next run and, if X did not finish, X's next run settle
 * both. P = commit:before is the issue's case: Y read the partition's tags before X swapped, and the
 * restart comes right after Y's swap, while X's replaced part is only outdated in memory. Each
 * operation must land exactly once, the target must equal the source (one generation: a replaced
 * copy brought back by the restart shows as duplicates and a parity FAIL) and X's last run must
 * succeed. (The engine's own two-replaces live test restarts at P itself, with Y resumed or dead.)
 */

/** The points of the swap and settle window where a second operation can interleave, in order. */
const WINDOW: readonly string[] = [
  'target.stage:after',
  'target.commit:before',
  'target.commit:after',
  'target.settle:after',
  'target.marker:after',
];

/** The cell that catches a writer that swaps without claiming the partition (sensitive). */
const SENSITIVE_POINT = 'target.commit:before';

export interface SecondOperationParams extends ServerKill {
  readonly server: 'target';
  readonly secondOperation: true;
  /** Where the server is killed: the next window point Y passes after `point` (or `point`). */
  readonly killAt: string;
}

/** One SIGKILL cell per swap/settle point the route's target kills stop at (and the clean trace passes). */
export function planSecondOperation(spec: FaultSpecOf<'server-kill'>, context: PlanContext): CellDraft[] {
  if (spec.second_operation !== true) return [];
  if (spec.servers && !spec.servers.includes('target')) return [];
  const traced = new Set(context.traces.clean.map((o) => o.point));
  const points = [...new Set((context.capabilities?.serverKills.target ?? []).map((k) => k.point))];
  const passed = (point: string) => WINDOW.includes(point) && (traced.size === 0 || traced.has(point));
  return points
    .filter(passed)
    .filter((point) => !spec.points || spec.points.includes(point))
    .map((point) => {
      const kill = context.capabilities!.serverKills.target.find((k) => k.point === point)!;
      const params: SecondOperationParams = {
        server: 'target',
        phase: kill.phase,
        point,
        signal: 'SIGKILL',
        secondOperation: true,
        killAt: WINDOW.slice(WINDOW.indexOf(point) + 1).find(passed) ?? point,
      };
      return {
        localId: `target/${kill.phase}-second-operation`,
        fault: {
          kind: 'server-kill',
          server: 'target',
          signal: 'SIGKILL',
          phase: kill.phase,
          point,
          hit: 1,
          kill_at: params.killAt,
        },
        params: { ...params },
        sensitive: point === SENSITIVE_POINT,
        ...(point === SENSITIVE_POINT ? { variants: ['unclaimed-partition'] } : {}),
      };
    });
}

const second = (record: AttemptRecord): AttemptRecord => ({ ...record, operation: 'second' });

export async function runSecondOperation(run: CellRun, params: SecondOperationParams): Promise<CellOutcome> {
  const { fixture } = run;
  const file = fixture.secondOperationWorkloadFile;
  if (!file)
    return unverifiedOutcome(`route ${run.cell.route} cannot run a second operation on a cell's partition`);
  const victim = fixture.isolateServers ? (await fixture.isolateServers()).target : undefined;
  if (!victim) return unverifiedOutcome(`route ${run.cell.route} has no target server of its own to kill`);
  const later = params.killAt !== params.point;
  await using worker = run.start('first', {
    stop: { point: params.point, hit: 1 },
    ...(later ? { stops: [{ point: params.killAt, hit: 1 }] } : {}),
  });
  if (!(await worker.parked())) return { attempts: [await worker.result()], hit: false };
  const attempts: AttemptRecord[] = [];
  const other = second(await run.run('second', { workloadFile: file }));
  if (later) {
    worker.resume();
    if (!(await worker.parked(2))) return { attempts: [await worker.result(), other], hit: false };
  }
  await victim.kill('SIGKILL');
  try {
    worker.resume();
    attempts.push(await worker.result(), other);
  } finally {
    await victim.start();
  }
  await run.expireLeases();
  attempts.push(await run.run('settle'));
  let last = other;
  if (other.exit_code !== 0) {
    await run.expireLeases();
    last = second(await run.run('second-settle', { workloadFile: file }));
    attempts.push(last);
  }
  const finished: CheckRecord =
    last.exit_code === 0
      ? {
          name: 'second-operation',
          verdict: 'PASS',
          detail: `the second operation ${last.status ?? 'ended'} (its first run: ${other.error_code ?? `exit ${other.exit_code}`})`,
        }
      : {
          name: 'second-operation',
          verdict: 'FAIL',
          detail: `the second operation's last run ended ${last.error_code ?? `exit ${last.exit_code ?? last.signal}`}`,
        };
  return {
    attempts,
    hit: true,
    settle: false,
    expectation: { end: 'complete', operations: 2 },
    extraChecks: [finished],
    fault: {
      second_operation: other.error_code ?? (other.exit_code === 0 ? 'completed' : `exit ${other.exit_code}`),
    },
  };
}
