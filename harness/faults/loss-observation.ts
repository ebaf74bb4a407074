import { ERROR_CODES, EXIT_CODES } from '../../src/contracts/errors.ts';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { deriveOperationId } from '../../src/contracts/identity.ts';
import { main } from '../../src/cli/main.ts';
import { openJournal } from '../../src/cli/journal-url.ts';
import { readWorkloadFile } from '../../src/cli/workload-file.ts';
import { describeError } from '../evidence/error-description.ts';
import { journalSnapshot } from '../checkers/journal-history-checker.ts';
import type { InspectReading, JournalSnapshot, LossObservation } from '../evidence/evidence-types.ts';
import type { CellRun } from './fault.ts';

const BIN = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));
/** A spawned inspect that has not answered by then is taken as having read nothing. */
const SPAWNED_INSPECT_MS = 120_000;

function capture(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  return {
    stream: new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    text: () => chunks.join(''),
  };
}

function lastJson(text: string): Record<string, unknown> | null {
  for (const line of text.trim().split('\n').reverse()) {
    try {
      const parsed = JSON.parse(line) as unknown;
      if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
    } catch {
      // not a JSON line
    }
  }
  return null;
}

/**
 * `dpone recovery target-commit inspect --json` on the cell's journal and workload, the same CLI
 * code an operator runs (in this process: it is read-only, and a spawn per cell is time the suite
 * does not have). The journal's digest is taken before and after: inspect must change nothing.
 * `spawned`: in a process of its own started as the cell's workers are (the cell's `env` in its
 * environment, not only in the CLI's), for a probe that must reach the target exactly as a worker's
 * connector would (seal-probe.ts); never with the cell's unsafe variant.
 */
export async function inspect(
  run: CellRun,
  operationId: string,
  workloadFile = run.fixture.workloadFile,
  options: { readonly spawned?: boolean } = {},
): Promise<InspectReading> {
  const { fixture } = run;
  const before = await fixture.journalOps?.digest?.();
  const argv = [
    ...['recovery', 'target-commit', 'inspect', '--operation-id', operationId],
    ...['--journal', fixture.journalUrl, '--route', workloadFile, '--json'],
  ];
  let printed: { exitCode: number; stdout: string; stderr: string };
  if (options.spawned) {
    const result = await execa(process.execPath, ['--no-warnings', BIN, ...argv], {
      cwd: run.dir,
      reject: false,
      timeout: SPAWNED_INSPECT_MS,
      env: { ...fixture.env, DPONE_DEPLOYMENT_POLICY: '', DPONE_UNSAFE_VARIANT: '' },
    });
    printed = {
      exitCode: result.exitCode ?? -1,
      stdout: String(result.stdout),
      stderr: String(result.stderr),
    };
  } else {
    const out = capture();
    const err = capture();
    const exitCode = await main(
      argv,
      {},
      { stdout: out.stream, stderr: err.stream, env: { ...fixture.env }, cwd: run.dir },
    );
    printed = { exitCode, stdout: out.text(), stderr: err.text() };
  }
  const { exitCode } = printed;
  const after = await fixture.journalOps?.digest?.();
  const view = lastJson(printed.stdout);
  const assessment = view?.assessment as Record<string, unknown> | undefined;
  const error = lastJson(printed.stderr)?.error as { code?: unknown } | undefined;
  return {
    exit_code: exitCode,
    error_code: typeof error?.code === 'string' ? error.code : null,
    // inspect exits 29 (DIVERGED) with its full view when journal and fence contradict each other.
    assessment:
      (exitCode === 0 || exitCode === EXIT_CODES[ERROR_CODES.DIVERGED]) && assessment
        ? {
            kind: String(assessment.kind),
            state: String(assessment.state),
            version: Number(assessment.version),
            fence: String(assessment.fence),
          }
        : null,
    journal_unchanged: before === undefined || after === undefined ? null : before === after,
  };
}

async function readForkJournal(run: CellRun, url: string): Promise<JournalSnapshot | null> {
  try {
    const journal = await openJournal(url, { cwd: run.dir, env: { ...run.fixture.env } });
    try {
      const [id] = await journal.list();
      if (id === undefined) return journalSnapshot({ entry: null, history: [] });
      return journalSnapshot({ entry: await journal.get(id), history: await journal.history(id) });
    } finally {
      await journal.close();
    }
  } catch {
    return null;
  }
}

/** The operation id of the cell's workload (the same for every worker of the cell). */
export async function cellOperationId(run: CellRun): Promise<string> {
  return deriveOperationId((await readWorkloadFile(run.fixture.workloadFile, run.dir)).identity);
}

/**
 * What a loss cell looks at after its last worker: the fence as the harness reads it itself (every
 * place it was or may be), what `inspect` makes of the final state, and a forked journal's history.
 */
export async function observeLoss(run: CellRun, forkUrl?: string): Promise<LossObservation> {
  const operationId = await cellOperationId(run);
  // As an operator would find it: a refused worker's lease (TTL 150 ms) has run out, so inspect
  // explains where the operation stopped rather than "wait for the lease".
  await run.expireLeases();
  let fence: LossObservation['fence'] = null;
  let fenceError: string | undefined;
  if (!run.fixture.fenceOps) fenceError = `route ${run.cell.route} has no fence reader`;
  else {
    try {
      fence = await run.fixture.fenceOps.read(operationId);
    } catch (error) {
      fenceError = describeError(error);
    }
  }
  return {
    fence,
    ...(fenceError !== undefined ? { fence_error: fenceError } : {}),
    inspect: await inspect(run, operationId),
    ...(forkUrl !== undefined ? { fork_journal: await readForkJournal(run, forkUrl) } : {}),
  };
}
