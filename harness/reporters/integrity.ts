import { verifyEvidence } from '../evidence/evidence-verify.ts';
import type { Evidence } from '../evidence/evidence-types.ts';

/**
 * Whether the evidence a report is rendered from is what the run wrote: its digest matches its
 * content and every stored verdict re-checks. A report rendered from a changed file says so at
 * its top ("digest does not match"), so nobody reads an edited report as authentic.
 */
export interface Integrity {
  readonly ok: boolean;
  /** One line per difference `certify verify` finds; empty when ok. */
  readonly differences: readonly string[];
  /** The banner headline, or null when ok. */
  readonly headline: string | null;
}

export function checkIntegrity(evidence: Evidence): Integrity {
  const result = verifyEvidence(evidence);
  if (result.ok) return { ok: true, differences: [], headline: null };
  const digest = result.differences.some((line) => line.startsWith('digest:'));
  return {
    ok: false,
    differences: result.differences,
    headline: digest
      ? 'NOT VERIFIED: the evidence digest does not match its content; this file was changed after the run wrote it'
      : 'NOT VERIFIED: stored verdicts differ from what the checkers recompute from the stored data',
  };
}
