import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
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

export interface HarnessCost {
  readonly suite_wall_s: number;
  readonly suite_cells: number;
  readonly cells_per_s: number;
  readonly suite_verdict: string;
  readonly runner_peak_rss_mb: number;
  readonly crash_cell_median_ms: number;
  readonly crash_cell_attempts_median: number;
  readonly floor_ms: number;
  readonly crash_vs_floor: number;
  readonly races: readonly { workers: number; ms: number; exactly_one: boolean }[];
  readonly race32_vs_race2: number | null;
  readonly worker_peak_rss_mb: number;
}

/** Peak RSS (KiB) and wall time of one command, from GNU time. */
async function timed(command: string[], env: NodeJS.ProcessEnv): Promise<{ rssKb: number; wallS: number }> {
  const started = process.hrtime.bigint();
  const { stderr } = await run('/usr/bin/time', ['-f', 'DPONE_MAXRSS_KB=%M', ...command], {
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
  return { rssKb, wallS };
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

export async function harnessCost(options: { readonly protocolMs: number }): Promise<HarnessCost> {
  const out = await mkdtemp(join(tmpdir(), 'dpone-bench-suite-'));
  try {
    const env = { ...process.env, CI: 'true' };
    const suite = await timed([process.execPath, 'bin/dpone.js', 'certify', 'run', '--out', out], env);
    const evidence = JSON.parse(await readFile(join(out, 'evidence.json'), 'utf8')) as {
      verdict: string;
      cells: CellLike[];
    };
    const real = evidence.cells.filter(
      (cell) => !('variant' in cell) || (cell as { variant: unknown }).variant === null,
    );
    const crash = real.filter((cell) => cell.fault.kind === 'crash');
    const crashMs = median(crash.map((cell) => cell.duration_ms));
    const attempts = median(crash.map((cell) => cell.attempts.length));
    // Floor: the same number of process spawns plus the same database work done in-process.
    const floor = (await spawnFloorMs(Math.max(1, Math.round(attempts)), 5)) + options.protocolMs;
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
      suite_wall_s: round(suite.wallS, 1),
      suite_cells: evidence.cells.length,
      cells_per_s: round(evidence.cells.length / suite.wallS, 1),
      suite_verdict: evidence.verdict,
      runner_peak_rss_mb: round(suite.rssKb / 1024, 1),
      crash_cell_median_ms: round(crashMs, 1),
      crash_cell_attempts_median: attempts,
      floor_ms: round(floor, 1),
      crash_vs_floor: round(crashMs / floor),
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
