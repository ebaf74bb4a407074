import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { defaultConcurrency } from '../harness/run.ts';
import { median, round } from './stats.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');

interface CellLike {
  readonly id: string;
  readonly fault: { readonly kind: string; readonly workers?: number };
  readonly verdict: string;
  readonly duration_ms: number;
  readonly attempts: readonly unknown[];
  readonly target: { readonly mutations: number } | null;
}

/** The crash cells of one evidence file: median wall, attempts and spawned workers per cell. */
export interface CrashCells {
  readonly cells: number;
  readonly median_ms: number;
  readonly attempts_median: number;
  /** Attempts that ran a process in the cell (a restored first attempt ran once, while recording). */
  readonly spawns_median: number;
}

export interface HarnessCost {
  readonly suite_wall_s: number | null;
  /** The same suite with `--every-variant-cell` (every planned variant cell run), in the same bench run. */
  readonly suite_every_variant_cell_wall_s: number | null;
  /** suite_wall_s / suite_every_variant_cell_wall_s: what stopping a caught variant's cells saves. */
  readonly suite_vs_every_variant_cell: number | null;
  readonly suite_cells: number | null;
  /** CPU seconds (user + system) of the suite's run and every process it started, from GNU time. */
  readonly suite_cpu_s: number | null;
  /** Attempts of the suite's cells that ran a process (a restored first attempt ran while recording). */
  readonly suite_spawns: number | null;
  readonly suite_concurrency: number;
  readonly cells_per_s: number | null;
  readonly suite_verdict: string | null;
  readonly runner_peak_rss_mb: number | null;
  /** Crash cells run one at a time (scenarios/crash.yaml, --concurrency 1), as the floor is. */
  readonly crash_cells: number;
  readonly crash_cell_median_ms: number;
  readonly crash_cell_attempts_median: number;
  readonly crash_cell_spawns_median: number;
  readonly floor_ms: number;
  readonly crash_vs_floor: number;
  /** The suite's crash cells at its default concurrency (2 per CPU: cells share the CPUs). */
  readonly suite_crash_cell_median_ms: number | null;
  readonly suite_crash_vs_floor: number | null;
  readonly races: readonly { workers: number; ms: number; exactly_one: boolean }[];
  readonly race32_vs_race2: number | null;
  readonly worker_peak_rss_mb: number;
}

/** The crash scenario whose cells the ratio times (the same file the default suite runs). */
const CRASH_SCENARIO = 'scenarios/crash.yaml';

interface EvidenceLike {
  readonly verdict: string;
  readonly cells: readonly CellLike[];
}

/** Cells of real runs (not unsafe-variant sensitivity runs). */
function realCells(evidence: EvidenceLike): CellLike[] {
  return evidence.cells.filter(
    (cell) => !('variant' in cell) || (cell as { variant: unknown }).variant === null,
  );
}

/** Attempts that ran a process in the cell (a restored first attempt ran once, while recording). */
const spawned = (cell: CellLike) =>
  cell.attempts.filter((attempt) => (attempt as { role?: unknown }).role !== 'first-recorded').length;

export function crashCells(evidence: EvidenceLike): CrashCells {
  const crash = realCells(evidence).filter((cell) => cell.fault.kind === 'crash');
  if (crash.length === 0) throw new Error('the evidence holds no crash cell');
  return {
    cells: crash.length,
    median_ms: median(crash.map((cell) => cell.duration_ms)),
    attempts_median: median(crash.map((cell) => cell.attempts.length)),
    spawns_median: median(crash.map(spawned)),
  };
}

/** Peak RSS (KiB), wall time and CPU seconds (user + system, children included) of one command, from GNU time. */
async function timed(
  command: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ rssKb: number; wallS: number; cpuS: number }> {
  const started = process.hrtime.bigint();
  const format = 'DPONE_MAXRSS_KB=%M DPONE_CPU_S=%U+%S';
  const { stderr } = await run('/usr/bin/time', ['-f', format, ...command], {
    cwd: ROOT,
    env,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stderr?: string; code?: number }) => {
    // certify exits non-zero on FAIL/UNVERIFIED: the measurement still stands, the verdict is reported.
    if (typeof error.stderr === 'string') return { stderr: error.stderr };
    throw error;
  });
  const wallS = Number(process.hrtime.bigint() - started) / 1e9;
  const rssKb = Number(/DPONE_MAXRSS_KB=(\d+)/.exec(stderr)?.[1] ?? NaN);
  const cpu = /DPONE_CPU_S=([\d.]+)\+([\d.]+)/.exec(stderr);
  const cpuS = cpu ? Number(cpu[1]) + Number(cpu[2]) : NaN;
  return { rssKb, wallS, cpuS };
}

/** The floor of one crash cell: spawning bare `node -e 0` as many times as the cell spawns workers. */
async function spawnFloorMs(spawns: number, repeats: number): Promise<number> {
  const samples: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const started = performance.now();
    for (let i = 0; i < spawns; i++) await run(process.execPath, ['-e', '0']);
    samples.push(performance.now() - started);
  }
  return median(samples);
}

async function certify(args: readonly string[], out: string) {
  const env = { ...process.env, CI: 'true' };
  const timing = await timed(
    [process.execPath, 'bin/dpone.js', 'certify', 'run', ...args, '--out', out],
    env,
  );
  const evidence = JSON.parse(await readFile(join(out, 'evidence.json'), 'utf8')) as EvidenceLike;
  return { ...timing, evidence };
}

/**
 * What certifying costs: the default suite's wall time and cells per second (at its default
 * concurrency), and one crash cell against its spawn floor. The ratio times the crash cells of
 * scenarios/crash.yaml run one at a time, because the floor's spawns run one at a time: in the
 * suite, 2 cells per CPU share the machine and each cell's wall time counts its neighbours' work
 * too (the suite's own ratio is reported beside it). The suite runs twice: as a user runs it, and
 * with `--every-variant-cell` as the baseline its wall time is a ratio of. `suite: false` skips both.
 */
export async function harnessCost(options: {
  readonly protocolMs: number;
  readonly suite?: boolean;
}): Promise<HarnessCost> {
  const out = await mkdtemp(join(tmpdir(), 'dpone-bench-suite-'));
  try {
    const crashRun = await certify(['--scenario', CRASH_SCENARIO, '--concurrency', '1'], join(out, 'crash'));
    const crash = crashCells(crashRun.evidence);
    // Floor: the same number of process spawns plus the same database work done in-process.
    const floor =
      (await spawnFloorMs(Math.max(1, Math.round(crash.attempts_median)), 5)) + options.protocolMs;
    const suite = options.suite === false ? null : await certify([], join(out, 'suite'));
    // The baseline, measured here: the same suite running every planned variant cell.
    const every =
      options.suite === false ? null : await certify(['--every-variant-cell'], join(out, 'every'));
    const real = suite ? realCells(suite.evidence) : [];
    const suiteCrash = suite ? crashCells(suite.evidence) : null;
    const races = real
      .filter((cell) => cell.fault.kind === 'race')
      .map((cell) => ({
        workers: cell.fault.workers ?? cell.attempts.length,
        ms: cell.duration_ms,
        exactly_one: cell.target?.mutations === 1,
      }))
      .sort((a, b) => a.workers - b.workers);
    const r2 = races.find((r) => r.workers === 2);
    const r32 = races.find((r) => r.workers === 32);
    const worker = await workerPeakRss(out);
    return {
      suite_wall_s: suite ? round(suite.wallS, 1) : null,
      suite_every_variant_cell_wall_s: every ? round(every.wallS, 1) : null,
      suite_vs_every_variant_cell: suite && every ? round(suite.wallS / every.wallS) : null,
      suite_cells: suite ? suite.evidence.cells.length : null,
      suite_cpu_s: suite && Number.isFinite(suite.cpuS) ? round(suite.cpuS, 1) : null,
      suite_spawns: suite ? suite.evidence.cells.reduce((sum, cell) => sum + spawned(cell), 0) : null,
      suite_concurrency: defaultConcurrency(),
      cells_per_s: suite ? round(suite.evidence.cells.length / suite.wallS, 1) : null,
      suite_verdict: suite ? suite.evidence.verdict : null,
      runner_peak_rss_mb: suite ? round(suite.rssKb / 1024, 1) : null,
      crash_cells: crash.cells,
      crash_cell_median_ms: round(crash.median_ms, 1),
      crash_cell_attempts_median: crash.attempts_median,
      crash_cell_spawns_median: crash.spawns_median,
      floor_ms: round(floor, 1),
      crash_vs_floor: round(crash.median_ms / floor),
      suite_crash_cell_median_ms: suiteCrash ? round(suiteCrash.median_ms, 1) : null,
      suite_crash_vs_floor: suiteCrash ? round(suiteCrash.median_ms / floor) : null,
      races,
      race32_vs_race2: r2 && r32 ? round(r32.ms / r2.ms) : null,
      worker_peak_rss_mb: worker,
    };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

/** Peak RSS of one `dpone run` worker on the example workload, copied into a temp folder. */
async function workerPeakRss(scratch: string): Promise<number> {
  const dir = join(scratch, 'worker');
  await mkdir(dir, { recursive: true });
  await copyFile(join(ROOT, 'examples', 'workload.yaml'), join(dir, 'workload.yaml'));
  await run(process.execPath, ['examples/seed-embedded.ts', join(dir, 'data', 'source.db')], { cwd: ROOT });
  const { rssKb } = await timed(
    [process.execPath, 'bin/dpone.js', 'run', '--workload', join(dir, 'workload.yaml'), '--json'],
    process.env,
  );
  return round(rssKb / 1024, 1);
}

// `node bench/harness-cost.ts [--crash-only]`: this part of `npm run bench` alone (the crash ratio
// in about two minutes with --crash-only; the default suite adds several more).
if (import.meta.main) {
  const { protocolOverhead } = await import('./protocol-overhead.ts');
  const oneOp = (await protocolOverhead({ repeats: 5, sizes: [1] }))[0]?.protocol_ms ?? 0;
  const cost = await harnessCost({ protocolMs: oneOp, suite: !process.argv.includes('--crash-only') });
  console.table([{ ...cost, races: undefined }]);
  if (cost.races.length > 0) console.table(cost.races);
}
