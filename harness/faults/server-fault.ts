import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import { ownsServerFor } from '../routes/engine-services.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { ServerKill, ServerSignal } from '../routes/server-control.ts';
import type { CellFixture } from '../routes/route.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS, unverifiedOutcome } from './fault.ts';
import type { SecondOperationParams } from './second-operation-fault.ts';
import { planSecondOperation, runSecondOperation } from './second-operation-fault.ts';

type Server = 'target' | 'journal';

interface ServerParams extends ServerKill {
  readonly server: Server;
}

async function noMutationCheck(fixture: CellFixture, first: AttemptRecord): Promise<CheckRecord> {
  const snapshot = await fixture.inspector.snapshot({ firstDifference: false });
  const problems: string[] = [];
  if (first.error_code !== ERROR_CODES.JOURNAL_UNAVAILABLE)
    problems.push(
      `the attempt reported ${first.error_code ?? `exit ${first.exit_code}`}, not ${ERROR_CODES.JOURNAL_UNAVAILABLE}`,
    );
  if (snapshot.mutations !== 0)
    problems.push(`the target shows ${snapshot.mutations} mutations while the journal was down`);
  return problems.length > 0
    ? { name: 'journal-unavailable-no-mutation', verdict: 'FAIL', detail: problems.join('; ') }
    : {
        name: 'journal-unavailable-no-mutation',
        verdict: 'PASS',
        detail: `journal down: the attempt stopped with ${ERROR_CODES.JOURNAL_UNAVAILABLE} and the target stayed untouched (audit: 0 mutations)`,
      };
}

/** Where a route with no server to kill would have killed each (the cell ends UNVERIFIED). */
const UNAVAILABLE: Record<Server, { readonly phase: string; readonly point: string }> = {
  target: { phase: 'commit', point: 'target.commit:before' },
  journal: { phase: 'before-intent', point: 'journal.create:before' },
};

/** Why a route whose capabilities name no server kill cannot run server-kill cells. */
const NO_SERVER =
  'owns no server it may SIGKILL and restart (an embedded part, or a plug-in target that declares no serverKills), so recovery from a server crash cannot be certified on it';

/**
 * The route's kills of each server the scenario names (default both), of the signals it names
 * (default each kill's own), at points its clean trace passes (a replace's settle step is no
 * point of an append run).
 */
function planKills(spec: FaultSpecOf<'server-kill'>, context: PlanContext): CellDraft[] {
  const servers = (spec.servers ?? ['target', 'journal']) as Server[];
  const kills = context.capabilities?.serverKills;
  // A route with no server to kill at all (embedded parts, or a plug-in target that declares no
  // serverKills) still plans one cell per server, which ends UNVERIFIED with the reason: never a
  // scenario of no cells (a suite leaves the scenario out there).
  if (kills && kills.target.length + kills.journal.length === 0)
    return servers.map((server) => ({
      localId: `${server}/${UNAVAILABLE[server].phase}`,
      fault: { kind: 'server-kill', server, signal: 'SIGKILL', ...UNAVAILABLE[server], hit: 1 },
      params: { server, signal: 'SIGKILL', ...UNAVAILABLE[server] } satisfies ServerParams,
      sensitive: false,
    }));
  const traced = new Set(context.traces.clean.map((o) => o.point));
  const signals = spec.signals as readonly ServerSignal[] | undefined;
  return servers.flatMap((server) =>
    (context.capabilities?.serverKills[server] ?? [])
      .filter((kill) => traced.size === 0 || traced.has(kill.point))
      .filter((kill) => !spec.points || spec.points.includes(kill.point))
      .flatMap((kill) => (signals ? signals.map((signal) => ({ ...kill, signal })) : [kill]))
      .map((kill) => ({
        localId: `${server}/${kill.phase}${kill.signal === 'SIGKILL' ? '' : `-${kill.signal.toLowerCase()}`}`,
        fault: {
          kind: 'server-kill',
          server,
          signal: kill.signal,
          phase: kill.phase,
          point: kill.point,
          hit: 1,
        },
        params: { server, ...kill } satisfies ServerParams,
        sensitive: false,
      })),
  );
}

/**
 * server-kill: the cell moves onto servers of its own, a worker parks at the point, the server is
 * stopped (SIGKILL: a crash, backends too; SIGTERM: a clean shutdown), the worker is released into
 * the dead server, then the server starts again on the same data and the runner's settle worker
 * must finish with one mutation. A journal killed before COMMITTING must mean no mutation and
 * JOURNAL_UNAVAILABLE. The target's kills come from its part (e.g. a restart right after a
 * replace-partition swap, where one server version brings replaced rows back), the journal's from its part.
 */
export const serverKillFault: FaultModule<'server-kill'> = {
  kind: 'server-kill',
  unavailableIn(environment, capabilities) {
    // A service of the route that offers each cell a server of its own to kill (local provider).
    if (ownsServerFor(environment.services, 'server-kill')) return null;
    // A plug-in that declares serverKills starts (and kills) a server of its own per cell.
    if (capabilities?.ownServers === true) return null;
    if (
      capabilities &&
      capabilities.serverKills.target.length + capabilities.serverKills.journal.length === 0
    )
      return `the route ${NO_SERVER}`;
    return `provider ${environment.provider} owns no server it may SIGKILL and restart, so recovery from a server crash cannot be certified on it (provider local can)`;
  },
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: (spec, context) => [...planKills(spec, context), ...planSecondOperation(spec, context)],
  async run(run): Promise<CellOutcome> {
    if ((run.cell.params as { secondOperation?: boolean }).secondOperation)
      return runSecondOperation(run, run.cell.params as unknown as SecondOperationParams);
    const params = run.cell.params as unknown as ServerParams;
    const { fixture } = run;
    const servers = fixture.isolateServers ? await fixture.isolateServers() : {};
    const victim = servers[params.server];
    if (!victim)
      return unverifiedOutcome(
        `route ${run.cell.route} has no ${params.server} server of its own to kill (embedded, or the provider owns none)`,
      );
    await using worker = run.start('first', { stop: { point: params.point, hit: 1 } });
    if (!(await worker.parked())) return { attempts: [await worker.result()], hit: false };
    await victim.kill(params.signal);
    let first: AttemptRecord;
    const extraChecks: CheckRecord[] = [];
    try {
      worker.resume();
      first = await worker.result();
      if (params.noMutationExpected) extraChecks.push(await noMutationCheck(fixture, first));
    } finally {
      await victim.start();
    }
    return {
      attempts: [first],
      hit: true,
      expectation: {
        end: 'complete',
        ...(params.noMutationExpected ? { error_code: ERROR_CODES.JOURNAL_UNAVAILABLE } : {}),
      },
      extraChecks,
    };
  },
};
