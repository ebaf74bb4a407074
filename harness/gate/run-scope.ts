import type { CellEvidence } from '../evidence/evidence-types.ts';
import type { GateItemResult } from './acceptance-item.ts';

/**
 * The gate line that says what the evidence can certify: which cells did not run (UNVERIFIED),
 * grouped by fault kind and the reason the environment gave. An external run against a server the
 * harness does not own, for instance, cannot kill that server: its server-kill cells are listed
 * here, and the route is certified only by a run where they ran. PASS only when every cell ran.
 */
export function runScopeLine(cells: readonly CellEvidence[]): GateItemResult {
  const unrun = cells.filter((cell) => cell.verdict === 'UNVERIFIED');
  if (unrun.length === 0)
    return {
      id: 'run-scope',
      status: 'PASS',
      cells: cells.length,
      detail: `all ${cells.length} route cells ran`,
    };
  const groups = new Map<string, number>();
  for (const cell of unrun) {
    const reason =
      cell.checks.find((check) => check.verdict === 'UNVERIFIED')?.detail ?? 'no reason recorded';
    const key = `${cell.fault.kind}: ${reason}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  const reasons = [...groups].map(([key, count]) => `${count}× ${key}`).join('; ');
  return {
    id: 'run-scope',
    status: 'UNVERIFIED',
    cells: cells.length,
    detail: `${unrun.length} of ${cells.length} route cells could not run here, so this evidence cannot certify what they test (${reasons}); the ${cells.length - unrun.length} that ran decide the other lines`,
  };
}
