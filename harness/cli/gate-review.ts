import type { Evidence } from '../evidence/evidence-types.ts';
import { gateEvidence } from '../gate/gate-evidence.ts';
import type { ReportGate } from '../reporters/report-gate.ts';
import { reportGate } from '../reporters/report-gate.ts';

/**
 * Evaluates the gate on `evidence` for its own route, for the reports (`certify run`, `certify
 * report`). A gate that cannot be evaluated (a plug-in route whose module does not load here) is
 * said in the reports, not thrown: the reports still render.
 */
export async function reviewGate(
  evidence: Evidence,
  cwd: string,
  connectors: readonly string[] = [],
): Promise<ReportGate> {
  try {
    return reportGate(evidence, await gateEvidence(evidence, evidence.route, cwd, connectors));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return reportGate(evidence, null, typeof code === 'string' ? code : 'the gate failed to load');
  }
}
