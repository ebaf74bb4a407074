import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { expect } from 'vitest';
import {
  EXAMPLE_ORDERS,
  EXAMPLE_PARTITION_DAY,
  seedEmbeddedSource,
} from '../../../examples/seed-embedded.ts';
import { readFileRow } from '../embedded-files.test-support.ts';
import { lineOf as lineOfText } from '../workload-yaml.test-support.ts';

const BIN = fileURLToPath(new URL('../../../bin/dpone.js', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../../examples/workload.yaml', import.meta.url));

/** A temporary copy of examples/workload.yaml with its seeded embedded source beside it. */
export interface ExampleCopy {
  readonly dir: string;
  readonly workload: string;
  readonly text: string;
  /** Writes a variant of the workload next to the original and returns its path. */
  variant(name: string, edit: (text: string) => string): string;
  targetPath(): string;
}

export function exampleCopy(): ExampleCopy {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-cli-'));
  const workload = join(dir, 'workload.yaml');
  copyFileSync(EXAMPLE, workload);
  seedEmbeddedSource(join(dir, 'data/source.db'));
  const text = readFileSync(workload, 'utf8');
  return {
    dir,
    workload,
    text,
    variant(name, edit) {
      const path = join(dir, name);
      const changed = edit(text);
      if (changed === text) throw new TypeError(`variant ${name} changed nothing`);
      writeFileSync(path, changed);
      return path;
    },
    targetPath: () => join(dir, 'data/target.db'),
  };
}

/** Runs the real CLI in a separate process; never rejects. */
export function dpone(args: readonly string[], options: { cwd: string; env?: Record<string, string> }) {
  return execa(process.execPath, [BIN, ...args], {
    cwd: options.cwd,
    reject: false,
    extendEnv: true,
    env: { DPONE_FAULT_PLAN: '', DPONE_XCOM_PATH: '', ...options.env },
  });
}

/** Rows of the example's partition in the source: what a correct load leaves in the target. */
export const EXPECTED_ROWS = EXAMPLE_ORDERS.filter(([, day]) => day === EXAMPLE_PARTITION_DAY).length;

/** Target rows counted from the target table itself, and how many distinct natural keys they hold. */
export function targetCounts(path: string): { rows: number; distinctIds: number } {
  const row = readFileRow(path, 'SELECT COUNT(*) AS rows, COUNT(DISTINCT id) AS ids FROM events');
  return { rows: Number(row.rows), distinctIds: Number(row.ids) };
}

/** SHA-256 of a file and of its WAL, so "changed nothing" can be checked byte for byte. */
export function fileDigest(path: string): string {
  const hash = createHash('sha256');
  for (const file of [path, `${path}-wal`]) hash.update(existsSync(file) ? readFileSync(file) : 'absent');
  return hash.digest('hex');
}

/**
 * `dpone run` of a workload (the example's unless named) parked at a fault point by the harness's
 * own mechanism (DPONE_FAULT_PLAN), so a signal, a kill or a change lands exactly there: `parked`
 * resolves once it says so on fd 3, and rejects if it ends without.
 */
export function parkedRun(
  example: ExampleCopy,
  point: string,
  options: { workload?: string; trace?: string; env?: Record<string, string> } = {},
) {
  const plan = { ...(options.trace ? { trace: options.trace } : {}), stop: { point, hit: 1 }, notifyFd: 3 };
  const workload = options.workload ?? example.workload;
  const child = execa(process.execPath, [BIN, 'run', '--workload', workload, '--json'], {
    cwd: example.dir,
    reject: false,
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    env: { ...options.env, DPONE_XCOM_PATH: '', DPONE_FAULT_PLAN: JSON.stringify(plan) },
  });
  const parked = new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stdio[3]!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.includes('"event":"parked"')) resolve();
    });
    child.stdio[3]!.on('close', () => reject(new Error(`never parked at ${point}`)));
  });
  return { child, parked };
}

/** A run refused with a coded error: its exit code and the error's JSON (field, file:line:column). */
export interface Refusal {
  readonly exitCode: number;
  readonly error: { code: string; field?: string; location?: string; message: string };
}

/**
 * `dpone run --json` of `workload` in the example's folder (with `env` over the test's own), with the
 * coded error of its stderr's JSON line (null when none).
 */
export async function runJson(
  example: ExampleCopy,
  workload: string,
  extra: readonly string[] = [],
  env?: Record<string, string>,
) {
  const result = await dpone(['run', '--workload', workload, '--json', ...extra], {
    cwd: example.dir,
    ...(env ? { env } : {}),
  });
  const line = result.stderr.split('\n').find((candidate) => candidate.startsWith('{'));
  return { ...result, error: line ? (JSON.parse(line) as { error: Refusal['error'] }).error : null };
}

/** `dpone run --json` of `workload`, expected refused: its exit code and coded error. */
export async function refused(
  example: ExampleCopy,
  workload: string,
  extra: readonly string[] = [],
): Promise<Refusal> {
  const result = await runJson(example, workload, extra);
  expect(result.error, result.stderr).not.toBeNull();
  return { exitCode: result.exitCode ?? -1, error: result.error! };
}

/** The 1-based line of `file` that first contains `needle` (0 when none). */
export function lineOf(file: string, needle: string): number {
  return lineOfText(readFileSync(file, 'utf8'), needle);
}

/**
 * Issue 14's check of a workload refused before anything runs: the example with `from` replaced by
 * `to` is exit 2 DPONE_INVALID_INPUT naming `field` at the line the edit wrote, its message matches
 * `message` and echoes no secret, and no journal or target was made.
 */
export async function expectRefusedBeforeRun(
  from: string,
  to: string,
  field: string,
  message: RegExp,
): Promise<void> {
  const example = exampleCopy();
  const file = example.variant('bad.yaml', (text) => text.replace(from, to));
  const { exitCode, error } = await refused(example, file);
  expect([exitCode, error.code, error.field]).toEqual([2, 'DPONE_INVALID_INPUT', field]);
  expect(error.message).toMatch(message);
  expect(error.message).not.toContain('hunter2');
  // file:line:column of the key at fault: the last line the edit wrote.
  const keyLine = to
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .at(-1)!;
  expect(error.location).toMatch(new RegExp(`^${file}:${lineOf(file, keyLine)}:\\d+$`));
  // Nothing ran: no journal, no target.
  expect(existsSync(join(example.dir, 'data/state'))).toBe(false);
  expect(existsSync(example.targetPath())).toBe(false);
}
