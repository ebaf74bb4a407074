import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { median, round } from './stats.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');

/**
 * The harness on a 1,000,000-row crash cell: `certify run` of scenarios/huge/million-crash.yaml,
 * one shard of its cells (the run still makes its clean reference trace), one cell at a time, under
 * GNU time. `peak_rss_mb` is the largest process of the run's tree (runner and workers; GNU time
 * reports the maximum over the waited-for tree), `crash_cell_median_s` the crash cells' own
 * duration_ms from the evidence.
 */
export interface MillionCell {
  readonly cells: number;
  readonly crash_cell_median_s: number;
  readonly run_wall_s: number;
  readonly peak_rss_mb: number;
}

interface EvidenceLike {
  readonly cells: readonly { readonly fault: { readonly kind: string }; readonly duration_ms: number }[];
}

export async function millionCell(shard = '1/12'): Promise<MillionCell | { unmeasured: string }> {
  const out = await mkdtemp(join(tmpdir(), 'dpone-bench-million-'));
  try {
    const args = [
      '-f',
      'DPONE_MAXRSS_KB=%M',
      process.execPath,
      'bin/dpone.js',
      'certify',
      'run',
      '--scenario',
      'scenarios/huge/million-crash.yaml',
      '--shard',
      shard,
      '--concurrency',
      '1',
      '--reporter',
      'progress',
      '--out',
      out,
    ];
    const started = performance.now();
    const { stderr } = await run('/usr/bin/time', args, {
      cwd: ROOT,
      env: { ...process.env, CI: 'true' },
      maxBuffer: 64 * 2 ** 20,
    }).catch((error: { stderr?: string }) => {
      // certify exits non-zero on FAIL: the timing stands, the cells' verdicts are in the evidence.
      if (typeof error.stderr === 'string') return { stderr: error.stderr };
      throw error;
    });
    const wallS = (performance.now() - started) / 1000;
    const rssKb = Number(/DPONE_MAXRSS_KB=(\d+)/.exec(stderr)?.[1] ?? NaN);
    const evidence = JSON.parse(await readFile(join(out, 'evidence.json'), 'utf8')) as EvidenceLike;
    const crash = evidence.cells.filter((cell) => cell.fault.kind === 'crash');
    if (crash.length === 0) return { unmeasured: `shard ${shard} of million-crash.yaml held no crash cell` };
    return {
      cells: evidence.cells.length,
      crash_cell_median_s: round(median(crash.map((cell) => cell.duration_ms)) / 1000, 1),
      run_wall_s: round(wallS, 1),
      peak_rss_mb: round(rssKb / 1024),
    };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

// `node bench/million-cell.ts [shard]`: this entry alone (minutes).
if (import.meta.main) console.log(await millionCell(process.argv[2]));
