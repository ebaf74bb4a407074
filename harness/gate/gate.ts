import type { Evidence } from '../evidence/evidence-types.ts';
import type { PlanCheck } from '../plan/plan-check.ts';
import type { GateItemResult } from './acceptance-item.ts';
import { acceptanceItems } from './acceptance-items.ts';
import { runScopeLine } from './run-scope.ts';
import type { LineCheck } from './suite-check.ts';

/** What `verifyEvidence` found: the digest and the checker re-run agree with what is stored. */
export interface IntegrityResult {
  readonly ok: boolean;
  /** What differs, one line each (empty when ok). */
  readonly differences: readonly string[];
}

export interface GateResult {
  /** True only when every line is PASS. */
  readonly passed: boolean;
  /** Preconditions first, then the spec's acceptance items in its order, then the run as a whole. */
  readonly lines: readonly GateItemResult[];
}

/** A line that nothing decided is never PASS, whatever the item's own logic said. */
function decided(line: GateItemResult): GateItemResult {
  if (line.status !== 'PASS' || line.cells > 0) return line;
  return { ...line, status: 'FAIL', detail: `decided by zero cells: ${line.detail}` };
}

/**
 * Decides whether `evidence` certifies `route`. Pure: the caller verifies the evidence, plans it
 * again (`checkPlan`), compares its suite and code digests, and passes the results (gate-evidence.ts). UNVERIFIED and UNKNOWN are not PASS; a shard is
 * not a whole run; a line decided by zero cells is not PASS.
 */
export function evaluateGate(
  evidence: Evidence,
  route: string,
  integrity: IntegrityResult,
  /** Whether the evidence ran the code this runtime has (gate/code-check.ts). */
  code: LineCheck,
  plan: PlanCheck,
  /** Whether the evidence was planned from the shipped full suite (gate/suite-check.ts). */
  suite: LineCheck,
): GateResult {
  const cells = evidence.cells.filter((cell) => cell.variant === null && cell.route === route);
  const lines: GateItemResult[] = [];
  lines.push({
    id: 'evidence-integrity',
    status: integrity.ok ? 'PASS' : 'FAIL',
    cells: evidence.cells.length,
    detail: integrity.ok
      ? `digest ${evidence.digest ?? '?'} and the checkers' re-run agree`
      : `evidence does not verify: ${integrity.differences.slice(0, 3).join('; ')}${integrity.differences.length > 3 ? ` (+${integrity.differences.length - 3} more)` : ''}`,
  });
  const whole = !evidence.shard;
  lines.push({
    id: 'route-and-scope',
    status: evidence.route === route && whole ? 'PASS' : 'FAIL',
    cells: cells.length,
    detail:
      evidence.route !== route
        ? `evidence is for route ${evidence.route}, not ${route}`
        : whole
          ? `whole run of route ${route}, seed ${evidence.seed}`
          : `evidence is shard ${evidence.shard!.index}/${evidence.shard!.count}: merge the shards first`,
  });
  lines.push({ id: 'plan', status: plan.ok ? 'PASS' : 'FAIL', cells: plan.planned, detail: plan.detail });
  lines.push({ id: 'suite', status: suite.ok ? 'PASS' : 'FAIL', cells: plan.planned, detail: suite.detail });
  lines.push({
    id: 'code-digests',
    status: code.ok ? 'PASS' : 'FAIL',
    cells: cells.length,
    detail: code.detail,
  });
  for (const item of acceptanceItems(route))
    lines.push({ id: item.id, ...item.evaluate(cells, evidence.environment) });
  lines.push(sensitivityLine(evidence));
  lines.push(runScopeLine(cells));
  const notPass = cells.filter((cell) => cell.verdict !== 'PASS');
  lines.push({
    id: 'run-verdict',
    status:
      evidence.verdict === 'PASS' && notPass.length === 0 && cells.length > 0
        ? 'PASS'
        : evidence.verdict === 'PASS'
          ? 'FAIL'
          : evidence.verdict,
    cells: cells.length,
    detail: `run verdict ${evidence.verdict}; ${cells.length - notPass.length}/${cells.length} route cells PASS`,
  });
  const checked = lines.map(decided);
  return { passed: checked.every((line) => line.status === 'PASS'), lines: checked };
}

/**
 * Every unsafe variant the run planned was caught. A variant whose cells all could not run
 * (UNVERIFIED) is not shown caught: UNVERIFIED; none planned or one that survived: FAIL.
 */
function sensitivityLine(evidence: Evidence): GateItemResult {
  const variantCells = evidence.cells.filter((cell) => cell.variant !== null);
  const unrun = (variant: string) =>
    variantCells.filter((cell) => cell.variant === variant).every((cell) => cell.verdict === 'UNVERIFIED');
  const uncaught = evidence.sensitivity.filter((record) => !record.caught);
  const survived = uncaught.filter((record) => !unrun(record.variant)).map((record) => record.variant);
  const total = evidence.sensitivity.length;
  const status = total === 0 || survived.length > 0 ? 'FAIL' : uncaught.length > 0 ? 'UNVERIFIED' : 'PASS';
  return {
    id: 'no-variant-survived',
    status,
    cells: variantCells.length,
    detail:
      total === 0
        ? 'no unsafe variant ran: the checks were not shown able to catch anything'
        : survived.length > 0
          ? `unsafe variant(s) survived: ${survived.join(', ')}`
          : uncaught.length > 0
            ? `unsafe variant(s) could not run here: ${uncaught.map((record) => record.variant).join(', ')}`
            : `${total}/${total} unsafe variants caught`,
  };
}

/** One printed line per item: status, id, how many cells decided it, detail. */
export function formatGateLine(line: GateItemResult): string {
  const cells = `${line.cells} ${line.cells === 1 ? 'cell' : 'cells'}`;
  const head = `${line.status.padEnd(10)} ${line.id.padEnd(26)} ${cells.padStart(10)}  ${line.detail}`;
  const ids = line.decided_by ?? [];
  if (ids.length === 0) return head;
  // The cells that decided an acceptance item, by name: the first few here, all of them in the
  // certification record.
  const shown = ids.slice(0, DECIDING_CELLS_SHOWN).join(', ');
  const more = ids.length > DECIDING_CELLS_SHOWN ? ` (+${ids.length - DECIDING_CELLS_SHOWN} more)` : '';
  return `${head}\n${' '.repeat(49)}decided by ${shown}${more}`;
}

/** How many deciding cells a gate line names on the terminal. */
const DECIDING_CELLS_SHOWN = 3;
