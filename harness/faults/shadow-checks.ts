import { readFile } from 'node:fs/promises';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { SHADOW_PARITY, SHADOW_REPORT } from '../evidence/check-names.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';

/** What `dpone shadow report --json` said, reduced to the numbers the checks compare (null: nothing read). */
export interface ShadowReportFigures {
  readonly exitCode: number | null;
  readonly errorCode: string | null;
  readonly attempts: number | null;
  readonly duplicateOperations: number | null;
  readonly duplicateWrites: number | null;
  readonly possibleDuplicates: number | null;
  readonly unknownOutcomes: number | null;
  readonly collisions: number | null;
}

interface ReportTotals {
  readonly attempts?: unknown;
  readonly duplicate_operations?: unknown;
  readonly duplicate_writes?: unknown;
  readonly possible_duplicate_operations?: unknown;
  readonly unknown_outcomes?: unknown;
  readonly identity_collisions?: unknown;
}

const count = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** Reads the report the worker printed (its stdout file); a missing or bad one reads as nulls. */
export async function readReport(file: string, record: AttemptRecord): Promise<ShadowReportFigures> {
  let totals: ReportTotals = {};
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { totals?: ReportTotals };
    totals = parsed.totals ?? {};
  } catch {
    // no report: a legacy run's journal holds no shadow records, or the report failed
  }
  return {
    exitCode: record.exit_code,
    errorCode: record.error_code ?? null,
    attempts: count(totals.attempts),
    duplicateOperations: count(totals.duplicate_operations),
    duplicateWrites: count(totals.duplicate_writes),
    possibleDuplicates: count(totals.possible_duplicate_operations),
    unknownOutcomes: count(totals.unknown_outcomes),
    collisions: count(totals.identity_collisions),
  };
}

const check = (name: string, verdict: CheckRecord['verdict'], detail: string): CheckRecord => ({
  name,
  verdict,
  detail,
});

/**
 * The target holds exactly what legacy semantics write: one mutation per attempt that returned,
 * plus the one killed after its commit; every attempt that was not killed exited 0, as legacy.
 */
export function parityCheck(
  mode: string,
  attempts: readonly AttemptRecord[],
  mutations: number,
  landed: number,
): CheckRecord {
  const failed = attempts.find((a) => a.signal === null && a.exit_code !== 0);
  if (failed)
    return check(SHADOW_PARITY, 'FAIL', `${mode}: attempt ${failed.role} exited ${failed.exit_code}, not 0`);
  return mutations === landed
    ? check(SHADOW_PARITY, 'PASS', `${mode}: the target shows ${mutations} mutations, as legacy writes`)
    : check(
        SHADOW_PARITY,
        'FAIL',
        `${mode}: the target shows ${mutations} mutations where legacy writes ${landed} (${attempts.length} attempts)`,
      );
}

/**
 * Legacy: no shadow record at all. Shadow: every attempt recorded, no identity collision, and the
 * report's extra writes equal the extra mutations the target's own rows show; only when an attempt
 * died between the commit and its record (`unknowable`) may the report count fewer, and then the
 * operation must be listed as a possible duplicate with enough unknown attempts to cover them.
 */
export function reportCheck(
  mode: string,
  attemptCount: number,
  mutations: number,
  report: ShadowReportFigures,
  unknowable: boolean,
): CheckRecord {
  if (mode === 'legacy') {
    const none =
      report.exitCode === 0 ? report.attempts === 0 : report.errorCode === ERROR_CODES.JOURNAL_UNAVAILABLE;
    return none
      ? check(SHADOW_REPORT, 'PASS', 'legacy: no shadow record exists (the report finds no shadow journal)')
      : check(SHADOW_REPORT, 'FAIL', `legacy: the shadow report found ${report.attempts ?? '?'} attempts`);
  }
  if (report.exitCode !== 0 || report.duplicateWrites === null)
    return check(SHADOW_REPORT, 'UNKNOWN', `the shadow report could not be read (exit ${report.exitCode})`);
  const extra = Math.max(0, mutations - 1);
  const counted = report.duplicateWrites;
  const shown = `target: ${mutations} mutations (${extra} extra); report: ${report.attempts} attempts, ${counted} extra writes, ${report.possibleDuplicates} possible, ${report.unknownOutcomes} unknown`;
  if (report.attempts !== attemptCount)
    return check(
      SHADOW_REPORT,
      'FAIL',
      `${attemptCount} attempts ran but the report lists ${report.attempts}: ${shown}`,
    );
  if (report.collisions !== 0)
    return check(SHADOW_REPORT, 'FAIL', `an identity collision where one intent ran: ${shown}`);
  if (counted > extra) return check(SHADOW_REPORT, 'FAIL', `a false alarm: ${shown}`);
  if (counted === extra)
    return check(SHADOW_REPORT, 'PASS', `the report counts exactly what the target shows: ${shown}`);
  const covered =
    unknowable && (report.possibleDuplicates ?? 0) >= 1 && counted + (report.unknownOutcomes ?? 0) >= extra;
  return covered
    ? check(
        SHADOW_REPORT,
        'PASS',
        `an attempt died between the commit and its record: listed as a possible duplicate: ${shown}`,
      )
    : check(SHADOW_REPORT, 'FAIL', `the report misses what the target shows: ${shown}`);
}
