import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule, WorkerOptions } from './fault.ts';
import { NORMAL_LEASE_TTL_MS } from './fault.ts';
import { SHADOW_MODES } from '../scenario/shadow-schema.ts';
import type { ShadowReportFigures } from './shadow-checks.ts';
import { parityCheck, readReport, reportCheck } from './shadow-checks.ts';

/** The shadow mode's own unsafe variants: each shown by the clean retry cell, every run. */
export const SHADOW_VARIANTS = [
  'shadow-unrecorded-write',
  'shadow-report-miscounts',
  'shadow-blocks-retry',
] as const;

type Mode = (typeof SHADOW_MODES)[number];

interface ShadowParams {
  readonly mode: Mode;
  /** Where the first attempt is SIGKILLed (absent: it runs to its end). */
  readonly kill?: string;
  /** Whether the kill lands after the target committed the first attempt's rows. */
  readonly committed?: boolean;
  /** Two workers write at once (no kill): both write, as legacy does. */
  readonly race?: boolean;
}

/**
 * The kills, at every fault point of the shadow path: as the write begins and before the target's
 * commit (nothing landed), right after the commit and before the shadow record (landed, its
 * outcome not yet recorded: the places the shadow journal cannot know), and after the shadow
 * journal recorded the outcome (landed and known). Legacy has no record to kill around.
 */
const KILLS: readonly { point: string; committed: boolean; modes: readonly Mode[] }[] = [
  { point: 'target.mutate:begin', committed: false, modes: ['shadow'] },
  { point: 'target.commit:before', committed: false, modes: ['shadow'] },
  { point: 'target.commit:after', committed: true, modes: ['shadow', 'legacy'] },
  { point: 'shadow.record:before', committed: true, modes: ['shadow'] },
  { point: 'shadow.record:after', committed: true, modes: ['shadow'] },
];

/** Killed after the commit, before its record: the outcomes the shadow journal cannot know. */
const UNKNOWABLE = new Set(['target.commit:after', 'shadow.record:before']);

function planShadow(spec: FaultSpecOf<'shadow'>): CellDraft[] {
  const modes = spec.modes ?? SHADOW_MODES;
  const drafts: CellDraft[] = [];
  for (const mode of SHADOW_MODES.filter((m) => modes.includes(m))) {
    drafts.push({
      localId: `${mode}/retry`,
      fault: { kind: 'shadow', mode, phase: 'retry' },
      params: { mode } satisfies ShadowParams,
      // A clean retry is where each shadow flaw shows, deterministically: two writes, one duplicate.
      sensitive: mode === 'shadow',
      ...(mode === 'shadow' ? { sensitiveTo: SHADOW_VARIANTS } : {}),
    });
    // Two workers at once, as a pause past the lease or a second scheduler would start them.
    if (mode === 'shadow')
      drafts.push({
        localId: `${mode}/race`,
        fault: { kind: 'shadow', mode, phase: 'race', workers: 2 },
        params: { mode, race: true } satisfies ShadowParams,
        sensitive: false,
      });
    for (const kill of KILLS.filter((k) => k.modes.includes(mode)))
      drafts.push({
        localId: `${mode}/kill@${kill.point}`,
        fault: { kind: 'shadow', mode, phase: 'kill', point: kill.point, hit: 1, attempt: 1 },
        params: { mode, kill: kill.point, committed: kill.committed } satisfies ShadowParams,
        sensitive: false,
      });
  }
  return drafts;
}

/** The deployment policy the cell's workers run under: one mode for every workload. */
async function policyFile(run: CellRun, mode: Mode): Promise<string> {
  const file = join(run.dir, 'rollout-policy.yaml');
  await writeFile(file, `deployment: certification\ndefault: ${mode}\n`);
  return file;
}

/** Runs `dpone shadow report --json` on the cell's journal: its attempt and the figures it printed. */
export async function runShadowReport(
  run: CellRun,
): Promise<{ readonly attempt: AttemptRecord; readonly figures: ShadowReportFigures }> {
  const reportFile = join(run.dir, 'shadow-report.json');
  const attempt = await run.run('shadow-report', {
    command: ['shadow', 'report', '--journal', run.fixture.journalUrl, '--json'],
    stdoutFile: reportFile,
  });
  return { attempt, figures: await readReport(reportFile, attempt) };
}

async function runShadow(run: CellRun): Promise<CellOutcome> {
  const params = run.cell.params as unknown as ShadowParams;
  const options: WorkerOptions = { extraArgs: ['--deployment-policy', await policyFile(run, params.mode)] };
  const attempts: AttemptRecord[] = [];
  let hit = true;
  if (params.race) {
    attempts.push(...(await Promise.all([run.run('race-1', options), run.run('race-2', options)])));
  } else {
    if (params.kill !== undefined) {
      const first = await run.killAt('first', { point: params.kill, hit: 1 }, options);
      attempts.push(first.record);
      hit = first.hit;
    } else attempts.push(await run.run('first', options));
    if (!hit) return { attempts, hit, settle: 'never', expectation: { end: 'complete', checks: [] } };
    attempts.push(await run.run('retry', options));
  }
  // What legacy semantics write: every attempt that returned, and the one killed after its commit.
  const landed = attempts.filter((a) => a.exit_code === 0).length + (params.committed ? 1 : 0);
  const target = await run.fixture.inspector.snapshot();
  const { attempt: report, figures } = await runShadowReport(run);
  // Killed after the commit, before its record: the one outcome the shadow journal cannot know.
  const unknowable = params.mode === 'shadow' && params.kill !== undefined && UNKNOWABLE.has(params.kill);
  const checks: CheckRecord[] = [
    parityCheck(params.mode, attempts, target.mutations, landed),
    reportCheck(params.mode, attempts.length, target.mutations, figures, unknowable),
  ];
  return {
    attempts: [...attempts, report],
    hit,
    settle: 'never',
    // No protocol ran: the core checks (one mutation, the journal's history) do not apply.
    expectation: { end: 'complete', checks: [] },
    extraChecks: checks,
    fault: {
      target_mutations: target.mutations,
      legacy_mutations: landed,
      report_attempts: figures.attempts,
      report_duplicate_writes: figures.duplicateWrites,
      report_possible_duplicates: figures.possibleDuplicates,
      unknowable: unknowable ? 1 : 0,
    },
  };
}

/**
 * shadow (issue 36): workers under a deployment policy in shadow or legacy mode, a first attempt
 * run to its end or SIGKILLed around the target commit and the shadow record, then a retry. The
 * harness then reads the target's own rows: shadow must have written exactly what legacy writes,
 * and `dpone shadow report` must count exactly the extra mutations the target shows (no miss, no
 * false alarm; only an attempt killed between the commit and its record may be "possible").
 */
export const shadowFault: FaultModule<'shadow'> = {
  kind: 'shadow',
  leaseTtlMs: () => NORMAL_LEASE_TTL_MS,
  plan: planShadow,
  run: runShadow,
};
