import { readFile } from 'node:fs/promises';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import { ownsServerFor } from '../routes/engine-services.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { StalledBackends } from '../routes/server-control.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { Worker } from '../workers/worker.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS, unverifiedOutcome } from './fault.ts';
import { installToxic } from './toxiproxy-switch.ts';
import { STALL_BOUNDED } from '../evidence/check-names.ts';

type StallPhase = 'fence-prepare' | 'guard' | 'copy' | 'commit' | 'fence-query';
type StallMethod = 'sigstop' | 'no-answer';

/** Where the worker parks before the harness stalls its target (copy: then waits for the COPY). */
const PHASE_POINTS: Readonly<Record<StallPhase, string>> = {
  'fence-prepare': 'fence.prepare:before',
  guard: 'target.mutate:begin',
  copy: 'target.mutate:begin',
  commit: 'target.commit:before',
  'fence-query': 'fence.query:before',
};

const PHASES = Object.keys(PHASE_POINTS) as StallPhase[];

/**
 * Phases whose backend the harness stops once the worker is released: the COPY once it runs; the
 * fence's preparation as soon as the target session exists (it connects on first use).
 */
const AFTER_RELEASE: ReadonlySet<StallPhase> = new Set(['copy', 'fence-prepare']);
const METHODS: readonly StallMethod[] = ['sigstop', 'no-answer'];

/**
 * The bound a run facing one stalled target must end within: every stalled step ends within its
 * own bound (a statement or a COPY step within query_timeout_ms, a connect within
 * connect_timeout_ms), and a run passes at most the stalled statement, the fence's read (it waits
 * for the stalled transaction's row lock up to lock_timeout = query_timeout_ms) and one connect;
 * the margin covers the process start and the journal's own steps.
 */
export const STALL_MARGIN_MS = 5000;
export function stallBoundMs(queryTimeoutMs: number, connectTimeoutMs: number): number {
  return 2 * queryTimeoutMs + connectTimeoutMs + STALL_MARGIN_MS;
}

/** How long the harness waits past the bound before it resumes a hung worker's target. */
const GRACE_MS = 15_000;

interface StallParams {
  readonly phase: StallPhase;
  readonly method: StallMethod;
  readonly point: string;
}

function planStalls(spec: FaultSpecOf<'stall'>, context: PlanContext): CellDraft[] {
  const traced = new Set(context.traces.clean.map((occurrence) => occurrence.point));
  const drafts: CellDraft[] = [];
  for (const phase of spec.phases ?? PHASES) {
    const point = PHASE_POINTS[phase];
    if (!traced.has(point)) continue;
    for (const method of spec.methods ?? METHODS) {
      // A server that stops answering mid-COPY is the guard's case: nothing is answered during a COPY.
      if (phase === 'copy' && method === 'no-answer') continue;
      drafts.push({
        localId: `${phase}/${method}`,
        fault: { kind: 'stall', point, hit: 1 },
        params: { phase, method, point } satisfies StallParams,
        // The stalled COPY is where a connector that never gives up shows.
        sensitive: phase === 'copy',
      });
    }
  }
  return drafts;
}

/** query_timeout_ms and connect_timeout_ms of the cell's target URL (the workload the workers get). */
async function targetBounds(run: CellRun): Promise<{ query: number; connect: number }> {
  const text = await readFile(run.fixture.workloadFile, 'utf8');
  const target = /"target"\s*:\s*\{[^}]*"url"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? '';
  const param = (name: string, fallback: number) => {
    const found = new RegExp(`[?&]${name}=(\\d+)`).exec(target)?.[1];
    return found ? Number(found) : fallback;
  };
  return { query: param('query_timeout_ms', 10_000), connect: param('connect_timeout_ms', 5000) };
}

/** Waits for the worker's end up to `ms`; null when it is still running then. */
async function endWithin(worker: Worker, ms: number): Promise<AttemptRecord | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([worker.result(), late]);
  } finally {
    clearTimeout(timer);
  }
}

function boundedCheck(ended: boolean, elapsedMs: number, boundMs: number, phase: string): CheckRecord {
  const ok = ended && elapsedMs <= boundMs;
  return {
    name: STALL_BOUNDED,
    verdict: ok ? 'PASS' : 'FAIL',
    detail: ended
      ? `the worker stalled at ${phase} ended on its own after ${elapsedMs} ms (bound ${boundMs} ms)`
      : `the worker stalled at ${phase} was still running ${elapsedMs} ms after its release (bound ${boundMs} ms): it never gave up`,
  };
}

async function runStall(run: CellRun): Promise<CellOutcome> {
  const params = run.cell.params as unknown as StallParams;
  const servers = run.fixture.isolateServers ? await run.fixture.isolateServers() : {};
  const target = servers.target;
  if (!target?.stallBackends)
    return unverifiedOutcome(`route ${run.cell.route} owns no target server whose backends it can stall`);
  const proxy = run.fixture.network?.proxies.target;
  if (params.method === 'no-answer' && (!proxy || !run.fixture.network))
    return unverifiedOutcome(`route ${run.cell.route} has no proxy on its target connection`);
  const bounds = await targetBounds(run);
  const boundMs = stallBoundMs(bounds.query, bounds.connect);
  await using worker = run.start('first', { stop: { point: params.point, hit: 1 } });
  if (!(await worker.parked())) return { attempts: [await worker.result()], hit: false };
  let stalled: StalledBackends | null = null;
  let toxic: AsyncDisposable | null = null;
  let released: number;
  try {
    if (params.method === 'no-answer') {
      toxic = await installToxic(run.fixture.network!.apiUrl, proxy!, 'lost-ack');
    } else if (!AFTER_RELEASE.has(params.phase)) {
      stalled = await target.stallBackends({ loading: false, withinMs: 5000 });
    }
    worker.resume();
    released = Date.now();
    if (params.method === 'sigstop' && AFTER_RELEASE.has(params.phase))
      stalled = await target.stallBackends({ loading: params.phase === 'copy', withinMs: 20_000 });
    const hit = stalled !== null || toxic !== null;
    const first = await endWithin(worker, boundMs + GRACE_MS);
    const elapsed = Date.now() - released;
    stalled?.resume();
    if (toxic) await toxic[Symbol.asyncDispose]();
    toxic = null;
    // A worker that never gave up goes on once its backend runs again; else it is killed.
    const record = first ?? (await endWithin(worker, 60_000)) ?? (worker.kill(), await worker.result());
    return {
      attempts: [record],
      hit,
      expectation: { end: 'complete' },
      extraChecks: hit ? [boundedCheck(first !== null, elapsed, boundMs, params.phase)] : [],
      fault: {
        bound_ms: boundMs,
        ended_after_ms: first !== null ? elapsed : null,
        stopped: stalled?.pids.length ?? 0,
      },
    };
  } finally {
    stalled?.resume();
    if (toxic) await toxic[Symbol.asyncDispose]();
  }
}

/**
 * stall: the target stops answering in each phase of the protocol, by SIGSTOP of its backend (also
 * in the middle of the COPY) or by a proxy that passes no byte back, and the worker must end on its
 * own within the stated bound (then the fence decides: a retry code, never a hang with the lease
 * long expired); the backend then resumes and the next worker finishes with exactly one mutation.
 */
export const stallFault: FaultModule<'stall'> = {
  kind: 'stall',
  unavailableIn(environment) {
    // A service of the route that offers each cell a server of its own whose backends it may stop.
    if (ownsServerFor(environment.services, 'stall')) return null;
    return `provider ${environment.provider} owns no server whose backends it may SIGSTOP (provider local can)`;
  },
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planStalls,
  run: runStall,
};
