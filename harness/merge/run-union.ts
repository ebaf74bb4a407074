import { createHash } from 'node:crypto';
import { invalidInput } from '../../src/contracts/errors.ts';
import { buildSensitivity, runVerdict } from '../checkers/sensitivity.ts';
import { canonicalJson } from '../evidence/canonical-json.ts';
import { withDigest } from '../evidence/evidence-digest.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { accountedCellIds } from '../evidence/evidence-types.ts';
import type { PlannedScenario, PlanRecord, StoredTraceBook } from '../evidence/plan-types.ts';
import { planDigest } from '../plan/plan-digest.ts';

type Scenarios = readonly { readonly name: string; readonly file: string }[];

const byId = (a: { readonly id: string }, b: { readonly id: string }): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
const byFile = (a: { file: string }, b: { file: string }): number =>
  a.file < b.file ? -1 : a.file > b.file ? 1 : 0;

function refuse(message: string): never {
  throw invalidInput(`cannot merge: ${message}`, { field: 'FILE' });
}

/** What every run of one union must share: the same route, build and world, told the same way. */
function sameBuild(runs: readonly Evidence[]): void {
  const facts = (evidence: Evidence): Record<string, unknown> => ({
    schema: evidence.schema,
    seed: evidence.seed,
    route: evidence.route,
    provider: evidence.provider,
    node: evidence.environment.node,
    platform: evidence.environment.platform,
    runtime_version: evidence.environment.runtime_version,
    connector_version: evidence.environment.connector_version,
    journal: evidence.environment.journal,
    loss_modes: canonicalJson(evidence.environment.loss_modes ?? null),
    seed_override: evidence.plan?.seed_override,
  });
  const expected = facts(runs[0]!);
  for (const other of runs.slice(1)) {
    const got = facts(other);
    for (const [field, value] of Object.entries(expected))
      if (got[field] !== value)
        refuse(
          `run ${other.run_id} has ${field} ${String(got[field])}, run ${runs[0]!.run_id} has ${String(value)}`,
        );
  }
}

/**
 * One trace key recorded by two runs: the same clean run, and for each first-attempt kill the
 * same recovery trace and state fingerprint where both recorded one. A run records recovery
 * traces only for the kills its own scenarios needed (depth 2), so one book may hold more.
 */
function joinBooks(key: string, a: StoredTraceBook, b: StoredTraceBook): StoredTraceBook {
  const differ = (what: string): never =>
    refuse(`the runs recorded different ${what} for ${key}: they did not plan from the same build`);
  if (canonicalJson(a.clean) !== canonicalJson(b.clean)) differ('clean traces');
  // The statement points of one clean run, and how a failed reference run ended, are one build's.
  const one = <T>(what: string, x: T | undefined, y: T | undefined): T | undefined => {
    if (x !== undefined && y !== undefined && canonicalJson(x) !== canonicalJson(y)) differ(what);
    return x ?? y;
  };
  const statements = one('statement traces', a.statements, b.statements);
  const failure = one('reference run endings', a.reference_failure, b.reference_failure);
  const join = <T>(what: string, x: Readonly<Record<string, T>>, y: Readonly<Record<string, T>>) => {
    const joined: Record<string, T> = { ...x };
    for (const [kill, value] of Object.entries(y)) {
      if (kill in joined && canonicalJson(joined[kill]) !== canonicalJson(value))
        differ(`${what} after ${kill}`);
      joined[kill] = value;
    }
    return joined;
  };
  return {
    clean: a.clean,
    ...(statements !== undefined ? { statements } : {}),
    recovery: join('recovery traces', a.recovery, b.recovery),
    fingerprints: join('state fingerprints', a.fingerprints, b.fingerprints),
    ...(failure !== undefined ? { reference_failure: failure } : {}),
  };
}

/** The plan records joined: each scenario in exactly one run, a trace recorded in two the same in both. */
function unionPlan(runs: readonly Evidence[], ids: readonly string[]): PlanRecord {
  const scenarios: PlannedScenario[] = [];
  const traces: Record<string, StoredTraceBook> = {};
  for (const run of runs) {
    const plan = run.plan;
    if (!plan) refuse(`run ${run.run_id} records no plan (scenario digests and traces)`);
    for (const scenario of plan.scenarios) {
      const twice = scenarios.find((known) => known.name === scenario.name || known.file === scenario.file);
      if (twice) refuse(`scenario ${scenario.name} (${scenario.file}) is in more than one run`);
      scenarios.push(scenario);
    }
    for (const [key, book] of Object.entries(plan.traces)) {
      const known = traces[key];
      traces[key] = known ? joinBooks(key, known, book) : book;
    }
  }
  return {
    seed_override: runs[0]!.plan!.seed_override,
    scenarios: scenarios.sort(byFile),
    traces,
    digest: planDigest(ids),
    cells: ids.length,
  };
}

/** Database versions and Toxiproxy: what each run met; a server met in two runs must be the same. */
function unionEnvironment(runs: readonly Evidence[]): Evidence['environment'] {
  const databases: Record<string, string> = {};
  let toxiproxy: string | null = null;
  const extras: Record<string, unknown> = {};
  for (const run of runs) {
    const { databases: met, toxiproxy: proxy, plan_digest: _d, planned_cells: _c, ...rest } = run.environment;
    for (const [name, version] of Object.entries(met)) {
      if (databases[name] !== undefined && databases[name] !== version)
        refuse(`the runs met ${name} ${databases[name]} and ${version}`);
      databases[name] = version;
    }
    if (proxy !== null) {
      if (toxiproxy !== null && toxiproxy !== proxy)
        refuse(`the runs met Toxiproxy ${toxiproxy} and ${proxy}`);
      toxiproxy = proxy;
    }
    for (const [key, value] of Object.entries(rest)) {
      // How many cells ran at once is a property of each run, not of what the cells show.
      if (key === 'concurrency') continue;
      // Which suite each run was asked for: the union is its own (the gate compares its scenario
      // files with the shipped suite itself); none when the runs' differ.
      if (key === 'suite') {
        extras.suite = key in extras && canonicalJson(extras.suite) !== canonicalJson(value) ? null : value;
        continue;
      }
      if (key in extras && canonicalJson(extras[key]) !== canonicalJson(value))
        refuse(`the runs differ in environment.${key}`);
      extras[key] = value;
    }
  }
  return { ...(extras as Evidence['environment']), databases, toxiproxy };
}

/**
 * Joins whole runs of one route and build over disjoint sets of scenario files into the evidence of
 * one run over all of them: for example the default suite a newcomer ran and the scenarios the full
 * suite adds, run afterwards. Cells, plan (scenario digests, traces, plan digest), sensitivity and
 * verdict are recomputed; `certify merge` then plans the union again itself from the scenario files
 * and refuses any missing or extra cell, as for shards. Refuses shards (merge those first), runs of
 * another seed, route, provider, Node, runtime or connector version, a scenario in two runs, and
 * the same trace recorded differently.
 */
export function unionRuns(runs: readonly Evidence[]): Evidence {
  if (runs.length < 2) refuse('a union needs two or more whole runs');
  const sharded = runs.find((run) => run.shard !== undefined);
  if (sharded) refuse(`run ${sharded.run_id} is a shard: merge its shards first, then join whole runs`);
  sameBuild(runs);
  const seen = new Set<string>();
  for (const run of runs)
    for (const id of accountedCellIds(run)) {
      if (seen.has(id)) refuse(`cell ${id} is in more than one run`);
      seen.add(id);
    }
  const cells = runs.flatMap((run) => run.cells).sort(byId);
  const skipped = runs.flatMap((run) => run.skipped_variant_cells ?? []).sort(byId);
  const plan = unionPlan(runs, [...seen].sort());
  const variants = [...new Set(runs.flatMap((run) => run.sensitivity.map((record) => record.variant)))];
  const sensitivity = buildSensitivity(cells, variants, skipped);
  const runIds = runs.map((run) => run.run_id).sort();
  const files = runs.flatMap(
    (run) => ((run as { scenario_files?: Scenarios }).scenario_files ?? []) as Scenarios,
  );
  const { digest: _digest, skipped_variant_cells: _skipped, ...first } = runs[0]!;
  return withDigest({
    ...first,
    run_id: `union-${createHash('sha256').update(runIds.join('\n')).digest('hex').slice(0, 12)}`,
    started_at: runs.map((run) => run.started_at).sort()[0]!,
    // The runs ran one after another: the union took as long as they did together.
    duration_ms: runs.reduce((total, run) => total + run.duration_ms, 0),
    environment: {
      ...unionEnvironment(runs),
      plan_digest: plan.digest,
      planned_cells: plan.cells,
      joined_from: runIds,
    },
    plan,
    ...(files.length > 0 ? { scenario_files: [...files].sort(byFile) } : {}),
    verdict: runVerdict(cells, sensitivity),
    cells,
    sensitivity,
    ...(skipped.length > 0 ? { skipped_variant_cells: skipped } : {}),
  } as Evidence);
}
