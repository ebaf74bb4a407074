import type { CellEvidence, Evidence, SkippedVariantCell } from '../evidence/evidence-types.ts';
import type { ReportGate } from './report-gate.ts';

/** What a reporter learns when the run starts: enough to show progress and name the output. */
export interface RunStart {
  readonly runId: string;
  readonly route: string;
  readonly seed: number;
  /** Number of cells that will run, sensitivity cells included. */
  readonly totalCells: number;
  /** Output directory (reports/<run-id>/ by default). */
  readonly dir: string;
  readonly startedAtMs: number;
}

/** A step before the first cell (servers starting, clean traces recorded), so no run starts silent. */
export interface RunPreparing {
  readonly route: string;
  /** What is being done, in words: "starting the local environment (its servers, toxiproxy)". */
  readonly step: string;
}

/**
 * A reporter plug-in, vitest style: every hook is optional but `onRunEnd`. Hooks must not throw on
 * purpose; the runner catches and reports a failing reporter without changing the verdict.
 */
export interface Reporter {
  /** Registry key, e.g. "progress", "json", "html", "markdown", "junit". */
  readonly name: string;
  /** Called before the cells are planned, once per preparing step. */
  onRunPreparing?(preparing: RunPreparing): void | Promise<void>;
  onRunStart?(start: RunStart): void | Promise<void>;
  /** Called once per finished cell, in completion order (not plan order). */
  onCellDone?(cell: CellEvidence): void | Promise<void>;
  /** Called once per planned variant cell not run because its variant was already caught. */
  onCellSkipped?(skip: SkippedVariantCell): void | Promise<void>;
  /**
   * Called once with the final evidence after it was written to `dir/evidence.json` (`dir` absolute), and what the
   * gate says about it (null when the caller did not evaluate it: the reports then say so).
   */
  onRunEnd(evidence: Evidence, dir: string, gate: ReportGate | null): void | Promise<void>;
}

/** Options every reporter factory gets. */
export interface ReporterOptions {
  readonly stdout: NodeJS.WritableStream;
  readonly env: NodeJS.ProcessEnv;
  /** True when stdout is a terminal and CI is not set: progress may redraw a line. */
  readonly interactive: boolean;
  /** The folder paths are shown relative to (the command's); absent: shown as given. */
  readonly cwd?: string;
}

export type ReporterFactory = (options: ReporterOptions) => Reporter;
