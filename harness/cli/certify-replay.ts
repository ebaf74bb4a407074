import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { invalidInput } from '../../src/contracts/errors.ts';
import { parseFlags } from '../../src/cli/args.ts';
import type { CommandRun } from '../../src/cli/command.ts';
import { readEvidence } from '../evidence/evidence-writer.ts';
import type { ScenarioSource } from '../run.ts';
import { runCertification } from '../run.ts';
import { verdictExitCode } from '../verdict.ts';
import { cellDirName } from '../runner/cell-dir.ts';
import { integerFlag } from './certify-run.ts';
import { DEFAULT_SCENARIOS, scenarioFiles } from '../scenario/scenario-suites.ts';

const FLAGS = {
  evidence: { type: 'string' },
  out: { type: 'string' },
  concurrency: { type: 'string' },
} as const;

/**
 * `dpone certify replay CELL_ID [--evidence FILE] [--out DIR]`: re-plans with the evidence's seed,
 * route, provider and scenario files (default evidence: reports/latest/evidence.json), runs that one
 * cell with the same faults and prints its verdict. Exit code by verdict (0 PASS, 1 FAIL, 3 other).
 */
export const run: CommandRun = async (args, io) => {
  const { values, positionals } = parseFlags(args, FLAGS, { positionals: true });
  const [cellId, ...rest] = positionals;
  if (cellId === undefined || rest.length > 0)
    throw invalidInput('replay takes exactly one CELL_ID', { field: 'CELL_ID' });
  const file = resolve(io.cwd, values.evidence ?? join('reports', 'latest', 'evidence.json'));
  if (!existsSync(file)) throw invalidInput(`no evidence file ${file}`, { field: '--evidence' });
  const evidence = readEvidence(file) as ReturnType<typeof readEvidence> & {
    scenario_files?: ScenarioSource[];
  };
  const recorded = evidence.cells.find((cell) => cell.id === cellId);
  const sources = evidence.scenario_files?.map((source) => source.file) ?? [DEFAULT_SCENARIOS];
  const concurrency = integerFlag(values.concurrency, '--concurrency', 1);
  const result = await runCertification({
    scenarioFiles: await scenarioFiles(sources, io.cwd),
    route: evidence.route,
    seed: evidence.seed,
    provider: evidence.provider,
    onlyCells: [cellId],
    out: values.out ?? join('reports', 'replays', cellDirName(`${evidence.run_id}/${cellId}`)),
    updateLatest: false,
    ...(concurrency !== undefined ? { concurrency } : {}),
    reporters: [],
    cwd: io.cwd,
  });
  const cell = result.evidence.cells[0]!;
  io.stdout.write(
    `${cell.verdict} ${cell.id}` +
      (recorded
        ? ` (recorded: ${recorded.verdict}${recorded.verdict === cell.verdict ? ', reproduced' : ', DIFFERS'})`
        : '') +
      `\n${cell.checks.map((check) => `  ${check.verdict} ${check.name}: ${check.detail}`).join('\n')}\n` +
      `evidence ${join(result.dir, 'evidence.json')}\n`,
  );
  // By the cell's own verdict: a replayed variant cell that FAILs (is caught) exits 1 like any FAIL.
  return verdictExitCode(cell.verdict);
};
