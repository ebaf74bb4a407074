import { recheckCell } from '../checkers/recheck-cell.ts';
import { buildSensitivity, catches, runVerdict, unjustifiedSkips } from '../checkers/sensitivity.ts';
import { evidenceDigest } from './evidence-digest.ts';
import { contractProblems } from './contract-schemas.ts';
import type { CellEvidence, Evidence, SensitivityRecord } from './evidence-types.ts';

export interface VerifyResult {
  readonly ok: boolean;
  /** One line per disagreement, naming the field and both values; empty when ok. */
  readonly differences: readonly string[];
}

function sensitivityDifferences(
  evidence: Evidence,
  cells: readonly CellEvidence[],
): { differences: string[]; records: SensitivityRecord[] } {
  const differences: string[] = [];
  const stored = new Map(evidence.sensitivity.map((record) => [record.variant, record]));
  const skipped = evidence.skipped_variant_cells ?? [];
  const records = buildSensitivity(cells, [...stored.keys()], skipped);
  // A variant cell may be left unrun only for a catch the re-checked cells still show.
  differences.push(...unjustifiedSkips(cells, skipped).map((problem) => `skipped_variant_cells: ${problem}`));
  for (const record of records) {
    const was = stored.get(record.variant);
    if (!was) {
      differences.push(`sensitivity ${record.variant}: missing for a variant with ${record.cells_run} cells`);
      continue;
    }
    for (const field of ['caught', 'cells_failed', 'cells_run', 'cells_skipped', 'cells_not_run'] as const) {
      if (was[field] !== record[field]) {
        differences.push(
          `sensitivity ${record.variant}.${field}: stored ${was[field]}, recomputed ${record[field]}`,
        );
      }
    }
    // Recorded since issue 35 (absent in older evidence): when stored, it must be what the cells say.
    for (const field of ['state', 'killed_by', 'not_run_reason'] as const) {
      if (was.state !== undefined && JSON.stringify(was[field]) !== JSON.stringify(record[field]))
        differences.push(
          `sensitivity ${record.variant}.${field}: stored ${JSON.stringify(was[field])}, recomputed ${JSON.stringify(record[field])}`,
        );
    }
    if (was.example_cell !== undefined) {
      const example = cells.find((cell) => cell.id === was.example_cell && cell.variant === record.variant);
      if (!example || !catches(example)) {
        differences.push(
          `sensitivity ${record.variant}.example_cell: ${was.example_cell} does not show the variant caught`,
        );
      }
    }
  }
  return { differences, records };
}

/**
 * Checks an evidence document end to end: its shape against schemas/evidence.v1.json; the digest over its content; every cell re-checked from
 * its own stored snapshots (`recheckCell`); the sensitivity records and the run verdict recomputed
 * from the cells (an uncaught variant makes the run FAIL); every skipped variant cell justified by a
 * re-checked cell that catches its variant. Never throws for a well-shaped document.
 */
export function verifyEvidence(evidence: Evidence): VerifyResult {
  // The published contract first: evidence a reviewer's tools cannot read as dpone.evidence/v1 is not evidence.
  const differences = contractProblems('evidence', evidence).map((problem) => `schema: ${problem}`);
  const digest = evidenceDigest(evidence);
  if (evidence.digest === undefined) differences.push(`digest: missing (content hashes to ${digest})`);
  else if (evidence.digest !== digest)
    differences.push(`digest: stored ${evidence.digest}, content hashes to ${digest}`);
  const ids = new Set<string>();
  // Sensitivity and the run verdict are recomputed from the re-checked cells, not the stored verdicts.
  const rechecked: CellEvidence[] = [];
  for (const cell of evidence.cells) {
    if (ids.has(cell.id)) differences.push(`cell ${cell.id}: appears more than once`);
    ids.add(cell.id);
    const result = recheckCell(cell);
    for (const difference of result.differences) differences.push(`cell ${cell.id}: ${difference}`);
    rechecked.push({ ...cell, verdict: result.verdict, checks: result.checks });
  }
  const sensitivity = sensitivityDifferences(evidence, rechecked);
  differences.push(...sensitivity.differences);
  const verdict = runVerdict(rechecked, sensitivity.records);
  if (verdict !== evidence.verdict)
    differences.push(`verdict: stored ${evidence.verdict}, recomputed ${verdict}`);
  return { ok: differences.length === 0, differences };
}
