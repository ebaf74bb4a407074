import { isAbsolute, relative } from 'node:path';
import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import { killLandingLines } from './kill-landings.ts';
import { sensitivityLine, variantViews } from './variant-states.ts';
import type { Reporter, ReporterOptions, RunStart } from './reporter.ts';

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** Below this share of the cells done, an estimate is noise (the first cells include the slowest setup). */
const ETA_FROM = 0.05;

/**
 * `done/total, elapsed, ETA, failures` — the one status line. `total` counts only the cells that
 * will run: a variant cell skipped once its variant was caught leaves it (and `skipped` says how
 * many did). No estimate before 5 % of the cells are done.
 */
export function progressLine(
  done: number,
  total: number,
  elapsedMs: number,
  failures: number,
  skipped = 0,
): string {
  const eta = done === 0 || done < total * ETA_FROM ? '…' : seconds((elapsedMs / done) * (total - done));
  const skips = skipped > 0 ? `  (${skipped} variant cells skipped once caught)` : '';
  return `${done}/${total} cells  elapsed ${seconds(elapsedMs)}  eta ${eta}  failures ${failures}${skips}`;
}

/** A cell that did not pass, with the first check that says why (a CI log then shows the reason). */
function notableLine(cell: CellEvidence): string {
  const why = cell.checks.find((check) => check.verdict === cell.verdict) ?? null;
  const detail = why ? `: ${why.name}: ${why.detail}` : '';
  const line = `${cell.verdict} ${cell.id}${detail}`;
  return line.length > 240 ? `${line.slice(0, 239)}…` : line;
}

/**
 * Progress: on a terminal one line redrawn in place (cells done/total, elapsed, estimate, failures
 * so far) with each failing cell printed above it; in CI or without a TTY, plain lines, one per
 * non-PASS cell and one every 10% of the run, so logs stay short.
 */
export function progressReporter(options: ReporterOptions): Reporter {
  const out = options.stdout;
  let start: RunStart | null = null;
  let done = 0;
  let failures = 0;
  let skipped = 0;
  let lastPlainDecile = -1;
  const now = () => Date.now() - (start?.startedAtMs ?? Date.now());
  // A path inside the command's folder as typed from there; outside it, absolute (works from anywhere).
  const shown = (path: string) => {
    const inside = options.cwd === undefined ? '' : relative(options.cwd, path);
    return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
  };
  const advance = (notable: string | null, ran = true) => {
    if (ran) done += 1;
    else skipped += 1;
    const total = (start?.totalCells ?? done) - skipped;
    const line = progressLine(done, total, now(), failures, skipped);
    if (options.interactive) {
      if (notable) out.write(`\r\x1b[2K${notable}\n`);
      out.write(`\r\x1b[2K${line}`);
      return;
    }
    if (notable) out.write(`${notable}\n`);
    const decile = Math.floor((done * 10) / Math.max(total, 1));
    if (decile !== lastPlainDecile) {
      lastPlainDecile = decile;
      out.write(`${line}\n`);
    }
  };
  return {
    name: 'progress',
    onRunPreparing(preparing) {
      out.write(`dpone certify: route ${preparing.route}: ${preparing.step}…\n`);
    },
    onRunStart(run) {
      start = run;
      out.write(
        `dpone certify: run ${run.runId}, route ${run.route}, seed ${run.seed}, up to ${run.totalCells} cells ` +
          `(a variant's remaining cells are skipped once one catches it)\n`,
      );
    },
    onCellDone(cell: CellEvidence) {
      const expectedFail = cell.variant !== null;
      if (cell.verdict === 'FAIL' && !expectedFail) failures += 1;
      const notable = cell.verdict !== 'PASS' && !(expectedFail && cell.verdict === 'FAIL');
      advance(notable ? notableLine(cell) : null);
    },
    // A variant cell not run (its variant was already caught) leaves the total: it will not run.
    onCellSkipped() {
      advance(null, false);
    },
    onRunEnd(evidence: Evidence, dir: string) {
      if (options.interactive) out.write('\n');
      const real = evidence.cells.filter((cell) => cell.variant === null);
      out.write(
        `verdict ${evidence.verdict}: ${real.length} cells, ${real.filter((c) => c.verdict === 'PASS').length} PASS; ` +
          `${sensitivityLine(evidence)}; ${seconds(evidence.duration_ms)}; evidence ${shown(dir)}/evidence.json\n`,
      );
      for (const line of killLandingLines(evidence)) out.write(`  ${line}\n`);
      // Why nothing could run (no SQL Server here, no Docker…): the reason, not only the verdict.
      if (evidence.environment.unavailable)
        out.write(`environment UNVERIFIED: ${evidence.environment.unavailable}\n`);
      // One line per variant: killed (by which checks), SURVIVED, or not run (the reason is above, once).
      for (const view of variantViews(evidence)) {
        const how =
          view.state === 'killed'
            ? `killed by ${view.killedBy.join(', ') || 'a catching check'}; ${view.counts}${view.example ? `, e.g. ${view.example}` : ''}`
            : view.state === 'survived'
              ? `SURVIVED: ${view.counts}`
              : view.counts;
        out.write(`  variant ${view.variant}: ${how}\n`);
      }
    },
  };
}
