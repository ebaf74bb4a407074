import { UNSAFE_VARIANTS } from '../../src/cli/unsafe-catalogue.ts';
import type { Evidence, SensitivityRecord, VariantState } from '../evidence/evidence-types.ts';

/** One unsafe variant as every rendering shows it: its state, what it breaks, what killed it, its counts. */
export interface VariantView {
  readonly variant: string;
  readonly state: VariantState;
  /** One sentence: what the variant breaks (the catalogue's description), or null for an unknown name. */
  readonly breaks: string | null;
  /** The checks that killed it (empty unless killed). */
  readonly killedBy: readonly string[];
  /** "killed in N of M cells run, K skipped", "ran M cells, none caught it", "not run: why". */
  readonly counts: string;
  readonly reason: string | null;
  readonly example: string | null;
}

/**
 * A record's state; evidence written before states were recorded gets it derived the same way
 * from its cells (a variant none of whose cells ran is not run, never survived).
 */
export function variantState(evidence: Evidence, record: SensitivityRecord): VariantState {
  if (record.state) return record.state;
  if (record.caught) return 'killed';
  const ran = evidence.cells.some((cell) => cell.variant === record.variant && cell.verdict !== 'UNVERIFIED');
  return ran ? 'survived' : 'not-run';
}

function ranCount(evidence: Evidence, record: SensitivityRecord): number {
  if (record.state) return record.cells_run;
  return evidence.cells.filter((cell) => cell.variant === record.variant && cell.verdict !== 'UNVERIFIED')
    .length;
}

export function variantView(evidence: Evidence, record: SensitivityRecord): VariantView {
  const state = variantState(evidence, record);
  const ran = ranCount(evidence, record);
  const skipped = record.cells_skipped ?? 0;
  const notRun = record.state
    ? (record.cells_not_run ?? 0)
    : evidence.cells.filter((cell) => cell.variant === record.variant && cell.verdict === 'UNVERIFIED')
        .length;
  const unrun = notRun > 0 ? `, ${notRun} could not run` : '';
  const counts =
    state === 'killed'
      ? `killed in ${record.cells_failed} of ${ran} cells run, ${skipped} skipped once killed${unrun}`
      : state === 'survived'
        ? `ran ${ran} cells, none caught it${unrun}`
        : `not run: 0 of ${ran + notRun} cells could run`;
  const catalogue = Object.hasOwn(UNSAFE_VARIANTS, record.variant)
    ? UNSAFE_VARIANTS[record.variant]
    : undefined;
  return {
    variant: record.variant,
    state,
    breaks: catalogue?.description ?? null,
    killedBy: record.killed_by ?? [],
    counts,
    reason: state === 'not-run' ? (record.not_run_reason ?? reasonFromCells(evidence, record.variant)) : null,
    example: record.example_cell ?? null,
  };
}

function reasonFromCells(evidence: Evidence, variant: string): string {
  const cell = evidence.cells.find((candidate) => candidate.variant === variant);
  return cell?.checks.find((check) => check.verdict === 'UNVERIFIED')?.detail ?? 'no reason recorded';
}

export function variantViews(evidence: Evidence): VariantView[] {
  return evidence.sensitivity.map((record) => variantView(evidence, record));
}

/** How many unsafe-variant cells ran (not UNVERIFIED): what "ran against unsafe variants" may count. */
export function variantCellsRan(evidence: Evidence): number {
  return evidence.cells.filter((cell) => cell.variant !== null && cell.verdict !== 'UNVERIFIED').length;
}

/**
 * One line on the sensitivity result: "12/12 unsafe variants killed", or with survivors named
 * (SURVIVED only for variants that ran) and the not-run ones counted with their reason.
 */
export function sensitivityLine(evidence: Evidence): string {
  const views = variantViews(evidence);
  if (views.length === 0) return 'not measured (no unsafe variant ran)';
  const of = (state: VariantState) => views.filter((view) => view.state === state);
  const parts = [`${of('killed').length}/${views.length} unsafe variants killed`];
  const survived = of('survived');
  if (survived.length > 0) parts.push(`SURVIVED: ${survived.map((view) => view.variant).join(', ')}`);
  const notRun = of('not-run');
  if (notRun.length > 0) {
    const reasons = [...new Set(notRun.map((view) => view.reason))];
    parts.push(
      `${notRun.length} not run (${reasons.slice(0, 2).join('; ')}${reasons.length > 2 ? `; +${reasons.length - 2} more reasons` : ''})`,
    );
  }
  return parts.join('; ');
}
