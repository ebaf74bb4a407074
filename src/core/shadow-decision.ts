import type { ShadowAttempt } from '../ports/shadow-journal.ts';

/**
 * What enforced mode would have decided at an attempt, from the operation's earlier attempts as
 * the shadow journal saw them (one line, for the record and the report). Enforcement proves from
 * the target's fence what these records can only suggest; this is the measurement a team reads
 * before turning it on.
 */
export function wouldDecide(intentDigest: string, prior: readonly ShadowAttempt[]): string {
  const conflicting = prior.find((attempt) => attempt.intentDigest !== intentDigest);
  if (conflicting)
    return `refused: intent conflict with attempt ${conflicting.tryNumber} (same operation id, another intent)`;
  const committed = prior.find((attempt) => attempt.outcome === 'committed');
  if (committed) return `refused: already committed by attempt ${committed.tryNumber}`;
  const unknown = prior.find((attempt) => attempt.outcome === 'unknown' || attempt.outcome === null);
  if (unknown)
    return unknown.outcome === null
      ? `would stop: outcome unknown (attempt ${unknown.tryNumber} never recorded an end; enforcement would ask the target's fence)`
      : `would stop: outcome unknown (attempt ${unknown.tryNumber}; enforcement would ask the target's fence)`;
  return prior.length === 0
    ? 'would write'
    : `would write (${prior.length} earlier attempt(s) failed before writing)`;
}
