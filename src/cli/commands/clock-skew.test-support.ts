import { join } from 'node:path';
import { expect } from 'vitest';
import { findFaketimeLibrary, faketimeOffsetEnv } from '../../../harness/env/faketime.ts';
import { Worker } from '../../../harness/workers/worker.ts';
import { embeddedJournalUrl } from '../embedded-journal.test-support.ts';
import type { ExampleCopy } from './example-workload.test-support.ts';

/**
 * Issue 30's clock-skew cases' workers (src/cli/commands/run-clock-skew.test.ts on the embedded
 * file journal, and a server journal's own in its engine's folder): `dpone run`s of the example
 * with the real libfaketime (Debian's `faketime`) moving their clock. Without the library the
 * clock cases are UNVERIFIED.
 */
export const faketime = findFaketimeLibrary();
export const faketimeMissing = faketime === null;

/** The example's default journal: the embedded engine's file in its state folder. */
export function journalPath(example: ExampleCopy): string {
  return join(example.dir, 'data/state/journal.db');
}

const started: Worker[] = [];

/** Ends every worker a test started (call it after each test). */
export async function stopWorkers(): Promise<void> {
  for (const worker of started.splice(0)) await worker[Symbol.asyncDispose]();
}

export interface ClockWorkerOptions {
  /** libfaketime's offset of the worker's clock (`+365d`, `+1h`). */
  readonly offset?: string;
  /** The fault point it parks at. */
  readonly stop?: string;
  /** Another journal than the example's default, and its password. */
  readonly journal?: { readonly url: string; readonly password: string };
  readonly workload?: string;
}

/** A `dpone run` of the example, parked at `stop` when given, its clock offset by `offset`. */
export function clockWorker(example: ExampleCopy, role: string, options: ClockWorkerOptions): Worker {
  const worker = Worker.start({
    role,
    workloadFile: options.workload ?? example.workload,
    journalUrl: options.journal?.url ?? embeddedJournalUrl(journalPath(example)),
    cwd: example.dir,
    traceFile: join(example.dir, `${role}.trace`),
    ...(options.stop ? { stop: { point: options.stop, hit: 1 } } : {}),
    env: {
      ...(options.offset ? faketimeOffsetEnv(faketime!, options.offset) : {}),
      ...(options.journal ? { DPONE_JOURNAL_PASSWORD: options.journal.password } : {}),
    },
    extraArgs: ['--holder', role],
  });
  started.push(worker);
  return worker;
}

/** A worker parked at `options.stop` and SIGKILLed there: the lease a lost pod leaves behind. */
export async function killedWhileParked(
  example: ExampleCopy,
  role: string,
  options: ClockWorkerOptions,
): Promise<void> {
  const parked = clockWorker(example, role, options);
  expect(await parked.parked()).not.toBeNull();
  parked.kill();
  await parked.result();
}
