import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES, RETRY_SAFE_CODES } from '../contracts/errors.ts';
import {
  PARTITION_ROWS,
  WORKER_OPERATION_ID,
  openEmbeddedJournal,
  seedSource,
  targetRowCounts,
} from './fixtures/embedded-route.ts';

/**
 * The multi-process proof: SIGKILL a real worker process at every fault point of one embedded
 * workload (each occurrence, taken from the trace of a clean run), run a clean retry to the end,
 * and count from the target's own rows that every source row landed exactly once.
 */
const WORKER = fileURLToPath(new URL('./fixtures/embedded-worker.ts', import.meta.url));
const LEASE_TTL_MS = 300;
const PARALLEL_CELLS = 2;
const RETRY_SAFE_EXITS = new Set([...RETRY_SAFE_CODES].map((code) => EXIT_CODES[code]));
const root = mkdtempSync(join(tmpdir(), 'dpone-kill-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Cell {
  readonly point: string;
  readonly hit: number;
}

function worker(dir: string, plan?: object, unsafeVariant?: string) {
  return execa(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', WORKER, JSON.stringify({ dir, leaseTtlMs: LEASE_TTL_MS })],
    {
      env: {
        ...(plan ? { DPONE_FAULT_PLAN: JSON.stringify(plan) } : {}),
        ...(unsafeVariant ? { DPONE_HARNESS: '1', DPONE_UNSAFE_VARIANT: unsafeVariant } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      reject: false,
    },
  );
}

/** Each occurrence of each point in the order a clean run passed them. */
async function recordTrace(): Promise<Cell[]> {
  const dir = join(root, 'trace');
  const base = mkdtempSync(`${dir}-`);
  seedSource(join(base, 'source.db'));
  const trace = join(base, 'trace.txt');
  const result = await worker(base, { trace });
  expect(result.exitCode, String(result.stderr)).toBe(0);
  const seen = new Map<string, number>();
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((point) => {
      const hit = (seen.get(point) ?? 0) + 1;
      seen.set(point, hit);
      return { point, hit };
    });
}

/** Starts a worker that parks at the cell's point, waits for it to say so on fd 3, SIGKILLs it. */
async function killAt(dir: string, cell: Cell, unsafeVariant?: string): Promise<string | null> {
  const child = worker(dir, { stop: cell, notifyFd: 3 }, unsafeVariant);
  const parked = new Promise<boolean>((resolve) => {
    let buffer = '';
    const notify = child.stdio[3]!;
    notify.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.includes('"event":"parked"')) resolve(true);
    });
    notify.on('close', () => resolve(false));
  });
  const reached = await parked;
  if (reached) child.kill('SIGKILL');
  const result = await child;
  return reached
    ? (result.signal ?? null)
    : `not parked (exit ${result.exitCode}: ${String(result.stderr).trim()})`;
}

interface CellResult {
  readonly cell: Cell;
  readonly killedBy: string | null;
  readonly retryExits: number[];
  /** The coded error of the last retry, if it failed (safe JSON: code and ids only). */
  readonly lastError: string;
  readonly rowCounts: number[];
  readonly finalState: string | undefined;
  readonly versionsStep: boolean;
}

async function runCell(cell: Cell, index: number, unsafeVariant?: string): Promise<CellResult> {
  const dir = mkdtempSync(join(root, `cell-${unsafeVariant ?? 'safe'}-${index}-`));
  seedSource(join(dir, 'source.db'));
  const killedBy = await killAt(dir, cell, unsafeVariant);
  const retryExits: number[] = [];
  let lastError = '';
  // A clean retry to completion; it may first meet the dead worker's unexpired lease (retry-safe).
  for (let attempt = 0; attempt < 6; attempt++) {
    const result = await worker(dir, undefined, unsafeVariant);
    retryExits.push(result.exitCode ?? -1);
    lastError = String(result.stderr).trim();
    if (!RETRY_SAFE_EXITS.has(result.exitCode ?? -1)) break;
    await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS));
  }
  await using journal = await openEmbeddedJournal(join(dir, 'journal.db'));
  const entry = await journal.get(WORKER_OPERATION_ID);
  const versions = (await journal.history(WORKER_OPERATION_ID)).map((record) => record.version);
  return {
    cell,
    killedBy,
    retryExits,
    lastError,
    rowCounts: [...targetRowCounts(join(dir, 'target.db')).values()],
    finalState: entry?.state,
    versionsStep: versions.every((version, i) => version === i + 1),
  };
}

async function inPool<T, R>(items: readonly T[], width: number, work: (item: T, i: number) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

describe('SIGKILL at every fault point of the embedded route', () => {
  it('leaves exactly one mutation in the target after a clean retry', { timeout: 600_000 }, async () => {
    const cells = await recordTrace();
    expect(cells.length).toBeGreaterThan(20);
    const results = await inPool(cells, PARALLEL_CELLS, runCell);
    const summary = results.map(
      (r) =>
        `${r.cell.point}#${r.cell.hit}: killed=${r.killedBy} retry=${r.retryExits.join(',')} ` +
        `rows=${r.rowCounts.join(',')} state=${r.finalState}`,
    );
    console.log(`kill-every-point: ${cells.length} cells\n${summary.join('\n')}`);
    for (const r of results) {
      const label = `${r.cell.point}#${r.cell.hit}`;
      expect(r.killedBy, label).toBe('SIGKILL');
      expect(r.retryExits.at(-1), `${label} ${r.lastError}`).toBe(0);
      expect(r.rowCounts, label).toEqual(Array(PARTITION_ROWS).fill(1));
      expect(r.finalState, label).toBe('COMPLETE');
      expect(r.versionsStep, label).toBe(true);
    }
  });

  // The proof must be able to fail: the same cell against connectors that lose the marker.
  it.each(['no-fence', 'split-marker'])(
    'catches the unsafe variant %s as a duplicate mutation',
    { timeout: 180_000 },
    async (variant) => {
      const result = await runCell({ point: 'target.commit:after', hit: 1 }, 0, variant);
      expect(result.killedBy).toBe('SIGKILL');
      expect(result.rowCounts).toHaveLength(PARTITION_ROWS);
      // Replayed at least once more (no-fence replays on every retry).
      for (const count of result.rowCounts) expect(count).toBeGreaterThan(1);
    },
  );
});
