import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp, mkdir, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { invalidInput } from '../src/contracts/errors.ts';
import { buildSensitivity, runVerdict } from './checkers/sensitivity.ts';
import { startAirflow } from './env/airflow/airflow-environment.ts';
import { ENVIRONMENT_PROVIDERS } from './env/environment-registry.ts';
import { ENVIRONMENT_ENGINES } from './routes/engine-services.ts';
import type { EnvironmentProvider, StartedEnvironment } from './env/environment.ts';
import type { CellEvidence, Evidence, SkippedVariantCell } from './evidence/evidence-types.ts';
import { EVIDENCE_SCHEMA } from './evidence/evidence-types.ts';
import { writeEvidence } from './evidence/evidence-writer.ts';
import type { Provenance } from './evidence/provenance.ts';
import { provenance, sameCodeAtEnd } from './evidence/provenance.ts';
import { planDigest } from './plan/plan-digest.ts';
import type { PlanRecord } from './evidence/plan-types.ts';
import { scenarioDigest, storeTraceBook } from './plan/plan-record.ts';
import type { PlannedCell } from './plan/cell.ts';
import type { Shard } from './plan/planner.ts';
import {
  DEFAULT_ROUTE,
  DEFAULT_ROWS,
  planCells,
  scenarioRoute,
  scenarioSeed,
  selectShard,
  TRACED_KINDS,
  traceKey,
} from './plan/planner.ts';
import type { TraceBook } from './plan/trace.ts';
import type { Reporter } from './reporters/reporter.ts';
import { prepareOutDir } from './runner/out-dir.ts';
import { BackgroundAirflow } from './runner/airflow-start.ts';
import { fullRouteId, loadRouteOrPlugin } from './routes/route-loader.ts';
import type { Route } from './routes/route.ts';
import { cellDirName } from './runner/cell-dir.ts';
import { notRunCell, runCell } from './runner/cell-runner.ts';
import { Interruption } from './runner/interruption.ts';
import { claimScratch, removeAbandonedScratch, scratchRoot } from './runner/scratch.ts';
import { mapBoundedSplit } from './runner/pool.ts';
import { VariantSkips, isSkip } from './runner/variant-skips.ts';
import { recordTraceBooks } from './runner/trace-recorder.ts';
import { loadScenarios } from './scenario/scenario-loader.ts';
import type { LoadedScenario } from './scenario/scenario-schema.ts';
import { verdictExitCode } from './verdict.ts';
import type { ReportGate } from './reporters/report-gate.ts';
import { nearestName } from '../src/cli/nearest-name.ts';

export interface CertifyOptions {
  readonly scenarioFiles: readonly string[];
  readonly route?: string;
  readonly seed?: number;
  /** Output folder; default `<cwd>/reports/<run-id>/` (and reports/latest then points at it). */
  readonly out?: string;
  readonly provider?: string;
  readonly shard?: Shard;
  readonly concurrency?: number;
  /** Scratch folder for cell worlds; default a fresh folder on tmpfs (/dev/shm) or the OS temp dir. */
  readonly workDir?: string;
  /** Run only these cells (replay, tests); each id must be in the plan. */
  readonly onlyCells?: readonly string[];
  /** Move reports/latest (default true unless replaying). */
  readonly updateLatest?: boolean;
  readonly reporters: readonly Reporter[];
  readonly cwd: string;
  /** Connector plug-in modules (`--connector`), beside those listed in package.json `dpone.connectors`. */
  readonly connectors?: readonly string[];
  /** How a cell is re-run, given the evidence file this run writes. */
  readonly reproduce?: (cell: PlannedCell, evidenceFile: string) => string;
  /**
   * Run every planned unsafe-variant cell (`--every-variant-cell`), also those of a variant another
   * cell has already caught; default false: those are skipped and listed (runner/variant-skips.ts).
   */
  readonly everyVariantCell?: boolean;
  /** The shipped suite the scenario files are (`--suite`), recorded with its digest; absent for `--scenario`. */
  readonly suite?: string;
  /**
   * What the gate says about the written evidence, for the reporters (the CLI passes the real gate);
   * absent: the reports say the gate was not evaluated.
   */
  readonly review?: (evidence: Evidence) => Promise<ReportGate>;
}

export interface CertifyResult {
  readonly evidence: Evidence;
  readonly dir: string;
  readonly exitCode: number;
  /** What the reporters were told about the gate (null without `review`). */
  readonly gate: ReportGate | null;
}

/** Evidence extension (allowed by the contract): which scenario files the run planned from, for replay. */
export interface ScenarioSource {
  readonly name: string;
  readonly file: string;
}

const RUNTIME_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/**
 * Twice the CPUs: a cell spends much of its wall time waiting (a killed worker's lease to expire,
 * a parked worker), so one lane per CPU would leave the CPUs idle.
 */
export function defaultConcurrency(): number {
  return availableParallelism() * 2;
}

function runIdFor(route: string): string {
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${route}-${randomBytes(3).toString('hex')}`;
}

function oneRoute(scenarios: readonly LoadedScenario[], options: CertifyOptions): string {
  // Aliases resolve first: `--route <alias>` and a scenario naming its full id are one route.
  const routes = new Set(scenarios.map(({ scenario }) => fullRouteId(scenarioRoute(scenario, options))));
  if (routes.size > 1)
    throw invalidInput(`the scenarios name several routes (${[...routes].join(', ')}); pass --route`, {
      field: '--route',
    });
  return [...routes][0] ?? fullRouteId(options.route ?? DEFAULT_ROUTE);
}

/** Records each distinct workload's traces once (crash, airflow and loss cells are planned from them). */
async function traceBooks(
  scenarios: readonly LoadedScenario[],
  route: Route,
  environment: StartedEnvironment | null,
  dir: string,
  options: CertifyOptions,
  concurrency: number,
): Promise<Map<string, TraceBook>> {
  // One recording per trace key. Recorded per scenario, a key's book came from its first scenario
  // that needs the recovery runs (a later one re-recorded a book without them), else from its first
  // scenario: the same scenario is chosen here, and the key is recorded once.
  const chosen = new Map<string, { scenario: LoadedScenario['scenario']; recovery: boolean }>();
  for (const { scenario } of scenarios) {
    const kinds = scenario.faults.map((fault) => fault.kind);
    if (!environment || !kinds.some((kind) => TRACED_KINDS.has(kind))) continue;
    const key = traceKey(route.id, scenario);
    // Depth-2 crash cells need the recovery runs; loss cells the kills' recorded states (when the
    // route can copy them, a real loss cell starts from one instead of killing a first attempt).
    const recovery = scenario.faults.some(
      (fault) =>
        ((fault.kind === 'crash' || (fault.kind === 'pause' && !fault.points)) && (fault.depth ?? 2) >= 2) ||
        ((fault.kind === 'journal-loss' || fault.kind === 'fence-loss') && route.copyCellState !== undefined),
    );
    const before = chosen.get(key);
    if (before === undefined || (recovery && !before.recovery)) chosen.set(key, { scenario, recovery });
  }
  if (!environment || chosen.size === 0) return new Map();
  // One key after another: recording every key's clean runs in one pool measured no faster on
  // this shared machine (trace phase 13.3 → 16.4 s default suite, 53.6 → 60.5 s on a server route's full suite).
  const books = new Map<string, TraceBook>();
  for (const [key, { scenario, recovery }] of chosen) {
    const recording = {
      route,
      environment,
      dir: join(dir, key.replace(/\W+/g, '_')),
      workload: {
        rows: scenario.workload?.rows ?? DEFAULT_ROWS,
        strategy: scenario.workload?.strategy ?? 'append',
        seed: scenarioSeed(scenario, options),
        ...(scenario.workload?.fence === 'none' ? { fence: 'none' as const } : {}),
      },
      recovery,
    };
    const [book] = await recordTraceBooks([recording], concurrency);
    books.set(key, book!);
  }
  return books;
}

/**
 * `certify run` end to end: scenarios → environment → traces → plan (→ shard) → cells in parallel
 * → checks → sensitivity → evidence → reporters. Throws DPONE_INVALID_INPUT before anything runs
 * when the input is bad.
 */
export async function runCertification(options: CertifyOptions): Promise<CertifyResult> {
  const startedAt = new Date();
  const scenarios = await loadScenarios(options.scenarioFiles);
  if (scenarios.length === 0) throw invalidInput('no scenario files matched', { field: '--scenario' });
  const routeId = oneRoute(scenarios, options);
  const route = await loadRouteOrPlugin(routeId, options);
  const providerName = options.provider ?? route.defaultProvider;
  const loadProvider = ENVIRONMENT_PROVIDERS[providerName];
  if (!loadProvider) throw invalidInput(`unknown provider "${providerName}"`, { field: '--provider' });
  const seed = options.seed ?? scenarioSeed(scenarios[0]!.scenario, options);
  const runId = runIdFor(routeId);
  const dir = resolve(options.cwd, options.out ?? join('reports', runId));
  // Before anything runs: a run must not spend its cells and then fail to write its evidence.
  await prepareOutDir(dir, '--out');
  const largest = Math.max(...scenarios.map(({ scenario }) => scenario.workload?.rows ?? DEFAULT_ROWS));
  const root = scratchRoot(largest);
  if (!options.workDir) await removeAbandonedScratch(root);
  const work = options.workDir ?? join(root, `dpone-${runId}`);
  // Ctrl-C / SIGTERM: kill the workers, let everything below unwind, end with one line (exit 130).
  using interruption = new Interruption(runId);
  await rm(work, { recursive: true, force: true });
  await mkdir(work, { recursive: true });
  if (!options.workDir) await claimScratch(work);
  try {
    const setup = {
      work,
      dir,
      runId,
      seed,
      routeId,
      route,
      providerName,
      loadProvider,
      scenarios,
      startedAt,
      // The code the workers load, taken before the first one starts (and compared at the end).
      origin: provenance(route.code(), options.suite, process.env),
    };
    return await runIn(setup, options, interruption);
  } catch (error) {
    // Whatever a killed worker or a stopped server made fail, an interrupted run says it was interrupted.
    if (interruption.stopped) throw interruption.error();
    throw error;
  } finally {
    if (!process.env.DPONE_KEEP_WORK) await rm(work, { recursive: true, force: true });
  }
}

/** Keeps the folders of real cells that did not PASS with the evidence, for inspection. */
async function keepNonPassing(cells: readonly CellEvidence[], cellsDir: string, dir: string): Promise<void> {
  for (const cell of cells) {
    if (cell.variant !== null || cell.verdict === 'PASS') continue;
    const name = cellDirName(cell.id);
    await cp(join(cellsDir, name), join(dir, 'cells', name), { recursive: true }).catch(() => undefined);
  }
}

/** What runCertification resolved before anything ran. */
interface RunSetup {
  readonly work: string;
  readonly dir: string;
  readonly runId: string;
  readonly seed: number;
  readonly routeId: string;
  readonly route: Route;
  readonly providerName: string;
  readonly loadProvider: () => Promise<EnvironmentProvider>;
  readonly scenarios: readonly LoadedScenario[];
  readonly startedAt: Date;
  readonly origin: Provenance;
}

async function runIn(
  setup: RunSetup,
  options: CertifyOptions,
  interruption: Interruption,
): Promise<CertifyResult> {
  const { work, dir, runId, seed, routeId, route, providerName, loadProvider, scenarios, startedAt, origin } =
    setup;
  const evidenceFile = join(dir, 'evidence.json');
  const concurrency = Math.max(1, options.concurrency ?? defaultConcurrency());
  const preparing = async (step: string) => {
    for (const reporter of options.reporters) await reporter.onRunPreparing?.({ route: routeId, step });
  };

  await preparing(
    route.services.length > 0
      ? `starting the ${providerName} environment (${route.services.join(', ')})`
      : `opening the ${providerName} environment`,
  );
  const started = await (
    await loadProvider()
  ).start({
    env: process.env,
    workDir: work,
    services: route.services,
    engines: ENVIRONMENT_ENGINES,
  });
  await using environment = started.status === 'started' ? started.environment : null;
  interruption.setCleanup(async () => {
    await environment?.[Symbol.asyncDispose]();
    if (!process.env.DPONE_KEEP_WORK) await rm(work, { recursive: true, force: true });
  });
  interruption.throwIfStopped();
  interruption.progress = 'while recording the clean traces';
  await preparing(
    `recording the protocol's clean traces (${scenarios.length} scenario file${scenarios.length === 1 ? '' : 's'}), then planning the cells`,
  );
  const books = await traceBooks(scenarios, route, environment, join(work, 'traces'), options, concurrency);
  interruption.throwIfStopped();
  const empty: TraceBook = { clean: [], recovery: new Map(), cleanDurationMs: 0 };
  const planned = await planCells(scenarios, {
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    route: routeId,
    variants: route.unsafeVariants,
    ...(route.lossModes ? { lossModes: route.lossModes } : {}),
    capabilities: route.capabilities,
    traces: (key) => books.get(key) ?? empty,
  });
  let cells = selectShard(planned, options.shard);
  const only = options.onlyCells;
  if (only !== undefined) {
    const missing = only.filter((id) => !cells.some((cell) => cell.id === id));
    if (missing.length > 0) {
      const near = nearestName(
        missing[0]!,
        cells.map((cell) => cell.id),
      );
      throw invalidInput(`no cell ${missing.join(', ')} in this plan`, {
        field: 'CELL_ID',
        ...(near ? { hint: `did you mean '${near}'?` } : {}),
      });
    }
    cells = cells.filter((cell) => only.includes(cell.id));
  }
  const shown = relative(options.cwd, evidenceFile) || evidenceFile;
  const reproduce = (cell: PlannedCell) =>
    options.reproduce?.(cell, shown) ?? `dpone certify replay '${cell.id}' --evidence ${shown}`;
  for (const reporter of options.reporters)
    await reporter.onRunStart?.({
      runId,
      route: routeId,
      seed,
      totalCells: cells.length,
      dir,
      startedAtMs: startedAt.getTime(),
    });

  // Airflow only when this run (or shard) has airflow-live cells to run on it; the other cells run
  // while it starts, and only the airflow-live ones (on lanes of their own) wait for it.
  await using airflow = new BackgroundAirflow(
    environment !== null && cells.some((cell) => cell.kind === 'airflow-live'),
    () => startAirflow(work, process.env),
  );
  const context = { route, environment: environment!, cellsDir: join(work, 'cells'), reproduce };
  let done = 0;
  interruption.progress = `after 0 of ${cells.length} cells`;
  const airflowCell = async (cell: PlannedCell): Promise<CellEvidence> => {
    const start = await airflow.ready();
    if (start?.status === 'started') return runCell(cell, { ...context, airflow: start.airflow });
    const reason = start?.reason ?? 'no Airflow was started';
    return start?.failure
      ? notRunCell(cell, `${reason}; CI provisions Airflow`, reproduce(cell), 'FAIL')
      : notRunCell(cell, reason, reproduce(cell));
  };
  const startCell = (cell: PlannedCell): Promise<CellEvidence> =>
    environment && cell.kind === 'airflow-live'
      ? airflowCell(cell)
      : environment
        ? runCell(cell, context)
        : Promise.resolve(
            notRunCell(
              cell,
              started.status === 'unverified' ? started.reason : 'no environment',
              reproduce(cell),
            ),
          );
  // A variant another cell has already caught: its cells not yet started are listed, not run.
  const skips = new VariantSkips(only === undefined && options.everyVariantCell !== true);
  // airflow-live cells wait on Airflow's scheduler most of their time: they get lanes of their own.
  const outcomes = await mapBoundedSplit(
    cells,
    concurrency,
    (cell) => cell.kind === 'airflow-live',
    (cell): Promise<CellEvidence | SkippedVariantCell> => {
      const skip = skips.skipFor(cell);
      return skip ? Promise.resolve(skip) : startCell(cell);
    },
    async (outcome) => {
      interruption.progress = `after ${++done} of ${cells.length} cells`;
      if (isSkip(outcome)) {
        for (const reporter of options.reporters) await reporter.onCellSkipped?.(outcome);
        return;
      }
      skips.record(outcome);
      for (const reporter of options.reporters) await reporter.onCellDone?.(outcome);
    },
    () => interruption.stopped,
  );
  interruption.throwIfStopped();
  const airflowStart = await airflow.ready().catch(() => null);
  const startedAirflow = airflowStart?.status === 'started' ? airflowStart.airflow : null;
  const results = outcomes.filter((outcome): outcome is CellEvidence => !isSkip(outcome));
  const skipped = outcomes.filter(isSkip);
  const variants = [...new Set(cells.flatMap((cell) => (cell.variant ? [cell.variant] : [])))];
  const sensitivity = only === undefined ? buildSensitivity(results, variants, skipped) : [];
  const verdict = runVerdict(results, sensitivity);
  const plan: PlanRecord = {
    seed_override: options.seed ?? null,
    scenarios: scenarios.map(({ scenario, file }) => ({
      name: scenario.name,
      file: relative(options.cwd, file) || file,
      sha256: scenarioDigest(scenario),
    })),
    traces: Object.fromEntries([...books].map(([key, book]) => [key, storeTraceBook(book)])),
    digest: planDigest(planned.map((cell) => cell.id)),
    cells: planned.length,
  };
  const evidence: Evidence & { scenario_files: readonly ScenarioSource[] } = {
    schema: EVIDENCE_SCHEMA,
    run_id: runId,
    seed,
    route: routeId,
    provider: providerName,
    started_at: startedAt.toISOString(),
    duration_ms: Date.now() - startedAt.getTime(),
    environment: {
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      databases: environment?.databases ?? {},
      toxiproxy: environment?.toxiproxy ?? null,
      runtime_version: RUNTIME_VERSION,
      connector_version: route.connectorVersion,
      journal: route.journal,
      concurrency,
      plan_digest: plan.digest,
      planned_cells: plan.cells,
      ...(route.lossModes ? { loss_modes: route.lossModes } : {}),
      ...sameCodeAtEnd(origin, provenance(route.code(), options.suite, process.env)),
      ...(started.status === 'unverified' ? { unavailable: started.reason } : {}),
      ...(startedAirflow
        ? {
            airflow: `${startedAirflow.venv.version} (cncf-kubernetes ${startedAirflow.venv.kubernetesProvider}, metadata ${startedAirflow.metadata.description})`,
          }
        : {}),
      ...(airflowStart?.status === 'unavailable' ? { airflow_unavailable: airflowStart.reason } : {}),
    },
    verdict,
    cells: results,
    sensitivity,
    ...(skipped.length > 0 ? { skipped_variant_cells: skipped } : {}),
    ...(options.shard ? { shard: options.shard } : {}),
    plan,
    scenario_files: scenarios.map(({ scenario, file }) => ({
      name: scenario.name,
      file: relative(options.cwd, file) || file,
    })),
  };
  await keepNonPassing(results, context.cellsDir, dir);
  const written = writeEvidence(dir, evidence, options.updateLatest === false ? { latestRoot: null } : {});
  const gate = options.review ? await options.review(written.evidence) : null;
  for (const reporter of options.reporters)
    // Absolute: a reporter writes files, and the process's own folder need not be options.cwd.
    await reporter.onRunEnd(written.evidence, dir, gate);
  return { evidence: written.evidence, dir, exitCode: verdictExitCode(verdict), gate };
}
