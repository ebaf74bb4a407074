/**
 * Three-valued validity plus "could not run", Jepsen style. Combining takes the worst:
 * FAIL > UNKNOWN > UNVERIFIED > PASS. UNVERIFIED is never counted as PASS.
 */
export const VERDICTS = ['PASS', 'UNVERIFIED', 'UNKNOWN', 'FAIL'] as const;
export type Verdict = (typeof VERDICTS)[number];

const RANK: Readonly<Record<Verdict, number>> = { PASS: 0, UNVERIFIED: 1, UNKNOWN: 2, FAIL: 3 };

export function worst(verdicts: Iterable<Verdict>): Verdict {
  let result: Verdict = 'PASS';
  for (const verdict of verdicts) if (RANK[verdict] > RANK[result]) result = verdict;
  return result;
}

/** certify exit codes: 0 all PASS; 1 any FAIL; 3 no FAIL but UNVERIFIED or UNKNOWN (2 is bad input). */
export function verdictExitCode(verdict: Verdict): number {
  return verdict === 'PASS' ? 0 : verdict === 'FAIL' ? 1 : 3;
}
