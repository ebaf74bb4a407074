import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { airflowChecks, blameHarness } from '../checkers/airflow-checker.ts';
import { describeError } from '../evidence/error-description.ts';
import { CORE_CHECK_NAMES } from '../checkers/check-cell.ts';
import { checkCell } from '../inspectors/live-check.ts';
import type { JournalRecords } from '../checkers/check-types.ts';
import type { LocalAirflow } from '../env/airflow/local-airflow.ts';
import type { StartedEnvironment } from '../env/environment.ts';
import { poolerMissing } from '../routes/engine-services.ts';
import type { AttemptRecord, CellEvidence, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellOutcome } from '../faults/fault.ts';
import { faultModule } from '../faults/fault-registry.ts';
import type { PlannedCell } from '../plan/cell.ts';
import type { CellFixture, Route } from '../routes/route.ts';
import { worst } from '../verdict.ts';
import { cellDirName } from './cell-dir.ts';
import { CellClock } from './cell-clock.ts';
import { cellRun } from './cell-run.ts';
import { operatorSettles } from './operator-settle.ts';

export interface CellContext {
  readonly route: Route;
  readonly environment: StartedEnvironment;
  /** Cells go to `<cellsDir>/<cell-dir-name>/`. */
  readonly cellsDir: string;
  /** The command that re-runs this cell, e.g. `dpone certify replay ID --evidence FILE`. */
  readonly reproduce: (cell: PlannedCell) => string;
  /** The run's local Airflow (airflow-live cells), or null. */
  readonly airflow?: LocalAirflow | null;
}

async function readJournal(fixture: CellFixture): Promise<JournalRecords> {
  const journal = await fixture.openJournal();
  try {
    const [id] = await journal.list();
    if (id === undefined) return { entry: null, history: [] };
    return { entry: await journal.get(id), history: await journal.history(id) };
  } finally {
    await journal.close();
  }
}

/** The pooler lane needs a pooler in front of the route's server (a service that offers one). */
function poolerUnavailable(cell: PlannedCell, environment: StartedEnvironment): string | null {
  if (cell.workload.pooler === undefined) return null;
  return poolerMissing(environment.services, environment.provider);
}

function check(name: string, verdict: CheckRecord['verdict'], detail: string): CheckRecord {
  return { name, verdict, detail };
}

/**
 * Runs one cell on a fresh fixture: the fault module's workers, then a settle worker (a clean
 * run once the lease has expired on the cell's clock) unless the fault says the operation must stay stopped, then the
 * checker. Never throws: a harness failure becomes an UNKNOWN check on the cell.
 */
export async function runCell(cell: PlannedCell, context: CellContext): Promise<CellEvidence> {
  const started = Date.now();
  const dir = join(context.cellsDir, cellDirName(cell.id));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const attempts: AttemptRecord[] = [];
  const extra: CheckRecord[] = [];
  let fixture: CellFixture | null = null;
  // The harness step under way, named if it throws (a plug-in's prepare, a seal, an Airflow wait).
  let step = 'loading the fault';
  try {
    const module = await faultModule(cell.kind);
    const unavailable =
      module.unavailableIn?.(context.environment, context.route.capabilities) ??
      poolerUnavailable(cell, context.environment);
    if (unavailable !== null)
      return notRunCell(cell, unavailable, context.reproduce(cell), 'UNVERIFIED', Date.now() - started);
    step = `preparing the cell (route ${context.route.id}: source, target and journal)`;
    fixture = await context.route.prepareCell(dir, cell.workload, context.environment);
    const clock = new CellClock();
    const run = cellRun(cell, dir, fixture, context.route, clock, context.airflow ?? null);
    step = `running the ${cell.kind} fault`;
    const outcome: CellOutcome = await module.run(run, cell.spec);
    step = 'settling and reading the cell';
    attempts.push(...outcome.attempts);
    extra.push(...(outcome.extraChecks ?? []));
    // A variant cell may take another path, so only a real cell's fault must have fired.
    if (!outcome.hit && cell.variant === null)
      extra.push(check('fault-fired', 'UNKNOWN', notReached(outcome.attempts)));
    const settle =
      outcome.settle === 'unless-complete'
        ? (await readJournal(fixture).catch(() => null))?.entry?.state !== 'COMPLETE'
        : outcome.settle !== false;
    if (outcome.settle === 'never') {
      // Legacy and shadow writes: no protocol to settle, not even by the operator.
    } else if (cell.workload.fence === 'none' || outcome.settle === 'operator') {
      // No fence can prove the outcome (none at all, or one that answered unknown): the harness
      // settles it as the operator, from the target rows.
      const operator = await operatorSettles(run, attempts);
      attempts.push(...operator.attempts);
      if (outcome.hit) extra.push(operator.check);
    } else if (settle) {
      await run.expireLeases();
      attempts.push(await run.run('settle'));
    }
    // Before the harness opens the journal itself: inspect must find it as the workers left it.
    const loss = outcome.observe ? await outcome.observe() : undefined;
    const journal = await readJournal(fixture).catch(() => null);
    const result = await checkCell({
      inspector: fixture.inspector,
      journal,
      attempts,
      ...(journal === null ? { journalError: 'the journal could not be read' } : {}),
      ...(outcome.expectation ? { expectation: outcome.expectation } : {}),
      extraChecks: extra,
      ...(loss !== undefined ? { loss } : {}),
    });
    // A scenario may keep only some core checks; the fault's own checks always stay.
    const keep = cell.checks;
    const kept = [
      ...(keep
        ? result.checks.filter((c) => keep.includes(c.name) || !CORE_CHECK_NAMES.has(c.name))
        : result.checks),
      ...(outcome.airflow ? airflowChecks(outcome.airflow, result.journal) : []),
    ];
    // Harness trouble is never the connector's fault (an Airflow step that never got dpone running).
    const checks = outcome.airflow ? blameHarness(kept, outcome.airflow) : kept;
    return evidence(cell, context, started, attempts, {
      ...result,
      verdict: worst(checks.map((c) => c.verdict)),
      checks,
      fault: { ...cell.fault, ...outcome.fault, fired: outcome.hit },
      ...(loss !== undefined ? { loss } : {}),
      ...(outcome.airflow ? { airflow: outcome.airflow } : {}),
    });
  } catch (error) {
    // The step that failed and the wait, in our own error's words (others: only their kind).
    const detail = `the harness could not run the cell: ${step} failed (${describeError(error)})`;
    return evidence(cell, context, started, attempts, {
      verdict: 'UNKNOWN',
      checks: [...extra, check('harness', 'UNKNOWN', detail)],
      target: null,
      journal: null,
      fault: cell.fault,
    });
  } finally {
    await Promise.resolve(fixture?.[Symbol.asyncDispose]()).catch(() => undefined);
  }
}

function evidence(
  cell: PlannedCell,
  context: CellContext,
  started: number,
  attempts: readonly AttemptRecord[],
  result: CellResult,
): CellEvidence {
  return cellEvidence(cell, context.reproduce(cell), Date.now() - started, attempts, result);
}

type CellResult = Pick<CellEvidence, 'verdict' | 'checks' | 'target' | 'journal' | 'fault'> &
  Partial<CellEvidence>;

function cellEvidence(
  cell: PlannedCell,
  reproduce: string,
  durationMs: number,
  attempts: readonly AttemptRecord[],
  result: CellResult,
): CellEvidence {
  return {
    id: cell.id,
    scenario: cell.scenario,
    route: cell.route,
    variant: cell.variant,
    fault: result.fault,
    verdict: result.verdict,
    ...(result.expectation ? { expectation: result.expectation } : {}),
    checks: result.checks,
    attempts,
    target: result.target,
    journal: result.journal,
    ...(result.loss !== undefined ? { loss: result.loss } : {}),
    reproduce,
    duration_ms: durationMs,
    ...(result.airflow ? { airflow: result.airflow } : {}),
  };
}

/**
 * The evidence of a cell that did not run: its environment (the provider, Airflow, the pooler
 * lane) could not give it what it needs, `reason` says why; UNVERIFIED, or FAIL where the run
 * must have had it (CI provisions it).
 */
export function notRunCell(
  cell: PlannedCell,
  reason: string,
  reproduce: string,
  verdict: 'UNVERIFIED' | 'FAIL' = 'UNVERIFIED',
  durationMs = 0,
): CellEvidence {
  return cellEvidence(cell, reproduce, durationMs, [], {
    verdict,
    checks: [check('environment', verdict, reason)],
    target: null,
    journal: null,
    fault: cell.fault,
  });
}

/**
 * The UNKNOWN of a cell whose fault never fired, with how each of its workers ended (role, exit
 * code or signal, stable error code, last point passed): what a CI log keeps when the cell's folder
 * is gone. Codes and point names only, never a worker's message.
 */
export function notReached(attempts: readonly AttemptRecord[]): string {
  const ends = attempts.map((a) => {
    const end = a.signal ? `killed by ${a.signal}` : `exit ${a.exit_code ?? '?'}`;
    const code = a.error_code ? ` ${a.error_code}` : '';
    return `${a.role}: ${end}${code}, last point ${a.last_point ?? 'none'}`;
  });
  return `the planned fault point was not reached: the cell tested nothing${ends.length ? ` (${ends.join('; ')})` : ''}`;
}
