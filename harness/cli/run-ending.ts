import { CERTIFYING_SUITE } from '../../src/contracts/certification.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import type { ReportGate } from '../reporters/report-gate.ts';
import { gateSentence } from '../reporters/report-gate.ts';

/** Single-quotes a shell word when it needs quoting, so a printed command can be pasted as is. */
function shellWord(value: string): string {
  return /^[\w./:=@+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command a reader runs next, in the order a reviewer would want it: replay a failure first,
 * then fix what could not run (doctor), then run the gating suite, then sign what passed.
 */
export function nextCommand(evidence: Evidence, dir: string, gate: ReportGate | null): string {
  const route = shellWord(evidence.route);
  const failed = evidence.cells.find((cell) => cell.variant === null && cell.verdict === 'FAIL');
  if (failed) return `${failed.reproduce}   (replays the first failing cell)`;
  if (evidence.shard)
    return `dpone certify merge SHARD_EVIDENCE… --out DIR --gate   (gate the merged shards)`;
  const unrun = evidence.cells.some((cell) => cell.variant === null && cell.verdict !== 'PASS');
  if (unrun || evidence.environment.unavailable)
    return `dpone doctor   (says what this machine lacks for the cells that did not run, and how to install it)`;
  if (gate === null)
    return `dpone certify gate --route ${route} --evidence ${shellWord(`${dir}/evidence.json`)}`;
  if (!gate.gating) {
    // The providers a route runs on without a flag (its own processes) need no --provider.
    const provider = ['local', 'embedded'].includes(evidence.provider)
      ? ''
      : ` --provider ${shellWord(evidence.provider)}`;
    return `dpone certify run --route ${route}${provider} --suite ${CERTIFYING_SUITE} --gate   (the gating suite)`;
  }
  if (!gate.enabled)
    return `dpone certify gate --route ${route} --evidence ${shellWord(`${dir}/evidence.json`)}`;
  return `dpone certify run --route ${route} --suite ${CERTIFYING_SUITE} --gate --sign --key KEY.pem   (or --keyless in CI)`;
}

/** The last lines of `certify run`: where the report is, what to run next, and the gate's answer last. */
export function runEnding(evidence: Evidence, dir: string, gate: ReportGate | null): string {
  const answer = gate
    ? gateSentence(gate)
    : 'Can this route be enabled? Not evaluated (the gate did not run)';
  return [
    `report: ${dir}/index.html (summary.md and junit.xml beside it)`,
    `next: ${nextCommand(evidence, dir, gate)}`,
    answer,
    '',
  ].join('\n');
}
