import type { Evidence } from '../evidence/evidence-types.ts';
import type { GateItemResult } from './acceptance-items.ts';
import { ACCEPTANCE_ITEMS } from './acceptance-items.ts';
import { runScopeLine } from './run-scope.ts';

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

/**
 * Decides whether `evidence` certifies `route`. Pure: the caller verifies the evidence and passes
 * the result. UNVERIFIED and UNKNOWN are not PASS; a shard is not a whole run.
 */
export function evaluateGate(
  evidence: Evidence,
  route: string,
  integrity: IntegrityResult,
  /** The connector version this runtime ships for the route (null: the runtime does not know it). */
  runtimeConnectorVersion: string | null,
): GateResult {
  const lines: GateItemResult[] = [];
  lines.push({
    id: 'evidence-integrity',
    status: integrity.ok ? 'PASS' : 'FAIL',
    detail: integrity.ok
      ? `digest ${evidence.digest ?? '?'} and the checkers' re-run agree`
      : `evidence does not verify: ${integrity.differences.slice(0, 3).join('; ')}${integrity.differences.length > 3 ? ` (+${integrity.differences.length - 3} more)` : ''}`,
  });
  const whole = !evidence.shard;
  lines.push({
    id: 'route-and-scope',
    status: evidence.route === route && whole ? 'PASS' : 'FAIL',
    detail:
      evidence.route !== route
        ? `evidence is for route ${evidence.route}, not ${route}`
        : whole
          ? `whole run of route ${route}, seed ${evidence.seed}`
          : `evidence is shard ${evidence.shard!.index}/${evidence.shard!.count}: merge the shards first`,
  });
  const certified = evidence.environment.connector_version;
  lines.push({
    id: 'connector-version',
    status: certified === runtimeConnectorVersion ? 'PASS' : 'FAIL',
    detail:
      certified === runtimeConnectorVersion
        ? `evidence covers connector ${certified}, the version this runtime ships`
        : `evidence covers connector ${certified}, but this runtime ships ${runtimeConnectorVersion ?? 'no connector'} for route ${route}: the certification could never be enforced`,
  });
  const cells = evidence.cells.filter((cell) => cell.variant === null && cell.route === route);
  for (const item of ACCEPTANCE_ITEMS)
    lines.push({ id: item.id, ...item.evaluate(cells, evidence.environment) });
  const survived = evidence.sensitivity.filter((record) => !record.caught).map((record) => record.variant);
  lines.push({
    id: 'no-variant-survived',
    status: evidence.sensitivity.length === 0 ? 'UNVERIFIED' : survived.length > 0 ? 'FAIL' : 'PASS',
    detail:
      evidence.sensitivity.length === 0
        ? 'no unsafe variant ran: the checks were not shown able to catch a duplicate'
        : survived.length > 0
          ? `unsafe variant(s) survived: ${survived.join(', ')}`
          : `${evidence.sensitivity.length}/${evidence.sensitivity.length} unsafe variants caught`,
  });
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
    detail: `run verdict ${evidence.verdict}; ${cells.length - notPass.length}/${cells.length} route cells PASS`,
  });
  return { passed: lines.every((line) => line.status === 'PASS'), lines };
}

/** One printed line per item: status padded, id, detail. */
export function formatGateLine(line: GateItemResult): string {
  return `${line.status.padEnd(10)} ${line.id.padEnd(26)} ${line.detail}`;
}
