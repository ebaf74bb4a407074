import { ERROR_CODES, isDponeError } from '../../src/contracts/errors.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { verifyEvidence } from '../evidence/evidence-writer.ts';
import { checkPlan } from '../plan/plan-check.ts';
import { loadRouteOrPlugin } from '../routes/route-loader.ts';
import { checkCode } from './code-check.ts';
import type { GateResult } from './gate.ts';
import { evaluateGate } from './gate.ts';
import { checkSuite } from './suite-check.ts';

/**
 * Gates evidence for `route`: verifies it, plans it again from the scenario files (relative to
 * `cwd`), checks it was planned from the shipped full suite and ran this runtime's code, then
 * evaluates every line. The one gate behind `certify gate`, `certify run --gate` and `certify merge --gate`.
 */
export async function gateEvidence(
  evidence: Evidence,
  route: string,
  cwd: string,
  connectors: readonly string[] = [],
): Promise<GateResult> {
  let running = null;
  try {
    running = (await loadRouteOrPlugin(route, { cwd, connectors })).code();
  } catch (error) {
    // An unknown route: the code line says so. A plug-in that cannot load is the caller's error.
    if (!isDponeError(error, ERROR_CODES.INVALID_INPUT)) throw error;
  }
  return evaluateGate(
    evidence,
    route,
    verifyEvidence(evidence),
    checkCode(evidence, running),
    await checkPlan(evidence, cwd, connectors),
    await checkSuite(evidence, cwd, connectors),
  );
}
