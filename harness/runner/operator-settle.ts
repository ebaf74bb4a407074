import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellRun } from '../faults/fault.ts';
import type { CellFixture } from '../routes/route.ts';

/** The states a fenceless cell's operator moves on; anything else a plain settle run finishes. */
const UNKNOWN = 'COMMIT_UNKNOWN';
/** Operator rounds at most: a "not committed" resolution makes the next run write, and stop, again. */
const MAX_ROUNDS = 3;

async function journalState(
  fixture: CellFixture,
): Promise<{ id: string; state: string; version: number } | null> {
  const journal = await fixture.openJournal();
  try {
    const [id] = await journal.list();
    const entry = id === undefined ? null : await journal.get(id);
    return entry ? { id: entry.operation_id, state: entry.state, version: entry.version } : null;
  } finally {
    await journal.close();
  }
}

/**
 * A cell whose target is written without a fence (capability none) ends, after its workers, where
 * only an operator moves it: COMMIT_UNKNOWN. The harness acts as that operator with what the
 * target's own rows show (its audit's mutation count, never the worker's word): `recovery
 * target-commit apply --action resolve-unknown --outcome committed|not-committed --evidence-ref`,
 * then a settle run. Returns the attempts and a check: before the operator's first action no run
 * (worker or retry) exited 0, since nothing proved the outcome, and some run left the operation
 * stopped at COMMIT_UNKNOWN for the operator.
 */
export async function operatorSettles(
  run: CellRun,
  before: readonly AttemptRecord[],
): Promise<{ attempts: AttemptRecord[]; check: CheckRecord }> {
  const attempts: AttemptRecord[] = [];
  // Attempts before the operator's first action: none may exit 0 (nothing proved the outcome).
  const unproven: AttemptRecord[] = [...before];
  let operated = false;
  const identityFile = join(run.dir, 'platform-identity');
  await writeFile(identityFile, 'platform:dpone-harness\n');
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    await run.expireLeases();
    const entry = await journalState(run.fixture);
    // No entry yet (the first worker died before its intent): the settle run starts it.
    if (entry?.state === 'COMPLETE') break;
    if (entry?.state === UNKNOWN) {
      operated = true;
      const { mutations } = await run.fixture.inspector.snapshot({ firstDifference: false });
      const outcome = mutations >= 1 ? 'committed' : 'not-committed';
      attempts.push(
        await run.run(`operator-${round}`, {
          command: [
            ...['recovery', 'target-commit', 'apply', '--operation-id', entry.id],
            ...['--journal', run.fixture.journalUrl, '--route', run.fixture.workloadFile],
            ...['--action', 'resolve-unknown', '--expected-version', String(entry.version)],
            ...['--outcome', outcome, '--evidence-ref', `harness-target-rows-${mutations}`],
            ...['--reason', 'harness operator: mutations counted from the target rows'],
            ...['--identity-file', identityFile, '--json'],
          ],
        }),
      );
      await run.expireLeases();
    }
    const settle = await run.run(`settle-${round}`);
    attempts.push(settle);
    if (!operated) unproven.push(settle);
  }
  const claimed = unproven.filter((attempt) => attempt.exit_code === 0).map((attempt) => attempt.role);
  const ok = claimed.length === 0 && operated;
  const detail =
    claimed.length > 0
      ? `${claimed.join(', ')} exited 0 although nothing proved the outcome (no fence, or a fence that ` +
        'answered unknown): it had to stop at COMMIT_UNKNOWN for an operator'
      : operated
        ? 'every run that began the mutation stopped at COMMIT_UNKNOWN; the harness operator settled it from the target rows'
        : 'no run left the operation COMMIT_UNKNOWN for an operator';
  return { attempts, check: { name: 'unknown-outcome', verdict: ok ? 'PASS' : 'FAIL', detail } };
}
