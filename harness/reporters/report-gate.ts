import { CERTIFYING_SUITE } from '../../src/contracts/certification.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import type { GateItemResult } from '../gate/acceptance-item.ts';
import type { GateResult } from '../gate/gate.ts';

/**
 * What every rendering says about the gate: the question a reviewer asks ("can this route be
 * enabled?"), its answer, and the gate's lines with the cells behind each. A run of the default
 * suite is not a gating run: its lines are shown for what its cells say, never as a certification.
 */
export interface ReportGate {
  /** The shipped suite the run was asked for (`default`, `full`), null for `--scenario` files. */
  readonly suite: string | null;
  /** True only for a whole run of the certifying suite: its lines decide whether the route may be enabled. */
  readonly gating: boolean;
  /** True only when the run is gating and every line is PASS. */
  readonly enabled: boolean;
  /** The gate's lines (preconditions, acceptance items, the run as a whole); empty when it could not be evaluated. */
  readonly lines: readonly GateItemResult[];
  /** The answer after "Can this route be enabled?", e.g. "No: this is the default suite; gating needs --suite full". */
  readonly answer: string;
  /** The gate as evaluated (for `--gate`, so it is not evaluated twice), null when it could not be. */
  readonly result: GateResult | null;
}

export const GATE_QUESTION = 'Can this route be enabled?';

/** How many failing line ids the one-line answer names before "(+N more)". */
const NAMED = 4;

/** The full sentence: question and answer, as the last line of `certify run` prints it. */
export function gateSentence(gate: ReportGate): string {
  return `${GATE_QUESTION} ${gate.answer}`;
}

/**
 * Builds what the reports show from the gate's result (`gate`, null when it could not be evaluated:
 * `reason` says why). Pure: the caller evaluated the gate (harness/gate/gate-evidence.ts).
 */
export function reportGate(evidence: Evidence, gate: GateResult | null, reason = ''): ReportGate {
  const recorded = evidence.environment.suite as { name?: unknown } | null | undefined;
  const suite = typeof recorded?.name === 'string' ? recorded.name : null;
  const gating = suite === CERTIFYING_SUITE && !evidence.shard;
  const lines = gate?.lines ?? [];
  const base = { suite, gating, lines, result: gate };
  if (evidence.shard)
    return {
      ...base,
      enabled: false,
      answer: `No: this is shard ${evidence.shard.index}/${evidence.shard.count}; merge the shards and gate the merge (certify merge --gate)`,
    };
  if (suite !== CERTIFYING_SUITE)
    return {
      ...base,
      enabled: false,
      answer:
        suite === null
          ? `No: this run's scenarios were chosen with --scenario; gating needs --suite ${CERTIFYING_SUITE}`
          : `No: this is the ${suite} suite; gating needs --suite ${CERTIFYING_SUITE}`,
    };
  if (gate === null)
    return {
      ...base,
      enabled: false,
      answer: `No: the gate could not be evaluated (${reason || 'no reason'})`,
    };
  if (gate.passed)
    return {
      ...base,
      enabled: true,
      answer: `Yes: every gate line PASS on the ${CERTIFYING_SUITE} suite (a runtime trusts it once signed: certify run --gate --sign)`,
    };
  const failing = gate.lines.filter((line) => line.status !== 'PASS');
  const named = failing.slice(0, NAMED).map((line) => `${line.id} ${line.status}`);
  const more = failing.length > NAMED ? ` (+${failing.length - NAMED} more)` : '';
  return { ...base, enabled: false, answer: `No: ${named.join(', ')}${more}` };
}
