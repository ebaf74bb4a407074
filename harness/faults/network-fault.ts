import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { ProxiedConnection } from '../routes/route.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS, unverifiedOutcome } from './fault.ts';
import type { ToxicName } from './toxiproxy-switch.ts';
import { TOXICS, installToxic } from './toxiproxy-switch.ts';

/**
 * Each phase of the protocol, the fault point a worker parks at to enter it, and the connection
 * that phase uses. The worker is parked, the toxic installed on that connection's proxy, the
 * worker released. A target adds phases of its own protocol (a staging target: its staging steps).
 */
export const PHASES: Readonly<Record<string, { point: string; proxy: ProxiedConnection }>> = {
  'before-intent': { point: 'journal.create:before', proxy: 'journal' },
  'fence-prepare': { point: 'fence.prepare:before', proxy: 'target' },
  mutation: { point: 'target.mutate:begin', proxy: 'target' },
  commit: { point: 'target.commit:before', proxy: 'target' },
  'fence-query': { point: 'fence.query:before', proxy: 'target' },
  'state-complete': { point: 'state.complete:before', proxy: 'journal' },
};

interface NetworkParams {
  readonly phase: string;
  readonly toxic: ToxicName;
  readonly point: string;
  readonly proxy: ProxiedConnection;
  /** The point where the network comes back (the toxic goes while the worker is parked there). */
  readonly heal?: string;
}

/** The shared phases and the route's own, each with its point and connection. */
function routePhases(context: PlanContext): Record<string, { point: string; proxy: ProxiedConnection }> {
  const own = Object.entries(context.capabilities?.networkPhases ?? {}).map(
    ([phase, point]) => [phase, { point, proxy: 'target' as const }] as const,
  );
  return { ...PHASES, ...Object.fromEntries(own) };
}

/**
 * The proxy a connection goes through in this cell, or why the cell cannot run (an embedded
 * journal has no connection to poison; a plug-in target is proxied only when it declares
 * `network`).
 */
function proxyOf(run: CellRun, connection: ProxiedConnection): { apiUrl: string; name: string } | string {
  const network = run.fixture.network;
  const name = network?.proxies[connection];
  if (!network || !name)
    return `route ${run.cell.route} has no proxy on its ${connection} connection (an embedded part, or a plug-in target that declares no network): network faults on it cannot run`;
  return { apiUrl: network.apiUrl, name };
}

/**
 * Parks the first worker at the phase's point, installs the toxic, releases it, and removes the
 * toxic after it ended, or (`heal`) while it is parked at that later point, so the rest of its run
 * (the fence query) has the network back.
 */
async function poisonedAttempt(
  run: CellRun,
  params: NetworkParams,
): Promise<{ record: AttemptRecord; hit: boolean; healed: boolean } | string> {
  const proxy = proxyOf(run, params.proxy);
  if (typeof proxy === 'string') return proxy;
  const heal = params.heal !== undefined ? [{ point: params.heal, hit: 1 }] : [];
  await using worker = run.start('first', { stop: { point: params.point, hit: 1 }, stops: heal });
  if (!(await worker.parked())) return { record: await worker.result(), hit: false, healed: false };
  const installed = await installToxic(proxy.apiUrl, proxy.name, params.toxic);
  let healed = false;
  try {
    worker.resume();
    if (heal.length > 0 && (await worker.parked(2)) !== null) {
      await installed[Symbol.asyncDispose]();
      healed = true;
      worker.resume();
    }
    return { record: await worker.result(), hit: true, healed };
  } finally {
    if (!healed) await installed[Symbol.asyncDispose]();
  }
}

/**
 * Cells per (phase, toxic): the scenario's phases, else every phase whose connection the route
 * proxies and whose point its clean trace passes (a point the protocol never reaches is no phase
 * of it). A phase the scenario names but the route lacks is planned and ends UNVERIFIED, and so
 * is every phase on a route that proxies no connection (a suite leaves the scenario out there).
 */
function planNetwork(spec: FaultSpecOf<'network'>, context: PlanContext): CellDraft[] {
  const phases = routePhases(context);
  const traced = new Set(context.traces.clean.map((o) => o.point));
  const proxies = context.capabilities?.proxies ?? ['target', 'journal'];
  const reached = Object.keys(phases).filter(
    (phase) => traced.size === 0 || traced.has(phases[phase]!.point),
  );
  const proxied = reached.filter((phase) => proxies.includes(phases[phase]!.proxy));
  // A route that proxies no connection at all (embedded, or a plug-in that declares no network)
  // still plans the phases, each UNVERIFIED with the reason: never a scenario of no cells.
  const names = spec.phases ?? (proxied.length > 0 ? proxied : reached);
  const toxics = spec.toxics ?? [...TOXICS];
  const heal = spec.heal_at !== undefined ? { heal: spec.heal_at } : {};
  return names.flatMap((phase) =>
    toxics.map((toxic) => {
      const { point, proxy } = phases[phase] ?? { point: `unknown:${phase}`, proxy: 'target' as const };
      return {
        localId: `${phase}/${toxic}${spec.heal_at !== undefined ? `>healed@${spec.heal_at}` : ''}`,
        fault: {
          kind: 'network',
          toxic,
          phase,
          point,
          hit: 1,
          proxy,
          ...(spec.heal_at ? { heal_at: spec.heal_at } : {}),
        },
        params: { phase, toxic, point, proxy, ...heal } satisfies NetworkParams,
        sensitive: false,
      };
    }),
  );
}

/**
 * network: one cell per (phase, toxic); after the poisoned attempt the runner's settle worker must
 * complete with one mutation. With `heal_at`, the network comes back at that point of the same
 * attempt: a fenced protocol that can itself answer `unknown` (a staging target: a staging table
 * its failed swap could not seal is still live) is asked while it cannot prove the outcome. That run
 * must stop at COMMIT_UNKNOWN (never exit 0, never replay), and the harness settles it as the
 * operator (`recovery target-commit apply --action resolve-unknown`, the outcome read from the
 * target's own rows), then a settle run completes it: exactly one mutation.
 */
export const networkFault: FaultModule<'network'> = {
  kind: 'network',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planNetwork,
  async run(run): Promise<CellOutcome> {
    const params = run.cell.params as unknown as NetworkParams;
    if (params.point.startsWith('unknown:'))
      return unverifiedOutcome(`route ${run.cell.route} has no network phase ${params.phase}`);
    const first = await poisonedAttempt(run, params);
    if (typeof first === 'string') return unverifiedOutcome(first);
    if (params.heal === undefined)
      return { attempts: [first.record], hit: first.hit, expectation: { end: 'complete' } };
    return {
      attempts: [first.record],
      hit: first.hit && first.healed,
      expectation: { end: 'complete' },
      settle: 'operator',
    };
  },
};

function lostAckCheck(
  landed: number,
  first: AttemptRecord,
  history: readonly { reason: string; from: string | null; to: string; holder: string | null }[],
): CheckRecord {
  const committing = history.findIndex((h) => h.to === 'COMMITTING');
  const after = history.slice(committing + 1);
  const reconciled = after.find(
    (h) => h.from === 'COMMITTING' && (h.to === 'TARGET_COMMITTED' || h.to === 'COMMIT_UNKNOWN'),
  );
  const problems: string[] = [];
  if (landed < 1)
    problems.push('the server did not commit behind the lost reply (the audit counts no mutation)');
  if (first.exit_code === 0)
    problems.push('the first attempt claimed success although it never heard the COMMIT reply');
  if (!reconciled)
    problems.push('no COMMITTING -> TARGET_COMMITTED|COMMIT_UNKNOWN transition after the lost reply');
  else if (reconciled.to === 'TARGET_COMMITTED' && reconciled.reason !== 'fence:committed')
    problems.push(`TARGET_COMMITTED without fence proof (${reconciled.reason})`);
  if (problems.length > 0) return { name: 'lost-ack-path', verdict: 'FAIL', detail: problems.join('; ') };
  return {
    name: 'lost-ack-path',
    verdict: 'PASS',
    detail: `server committed while the client heard nothing (audit: ${landed} mutation); first attempt ended ${first.error_code ?? `exit ${first.exit_code}`}; the journal went COMMITTING -> ${reconciled!.to} (${reconciled!.reason}) by reconciliation, never by replay`,
  };
}

/**
 * lost-ack: a downstream `timeout` toxic (timeout 0) installed at `target.commit:before`, so the
 * server commits (a transactional server: the COMMIT; a staging target: its swap) and the client never
 * hears back. Whether the server applied it is read from the harness's own audit before the toxic
 * goes (never from the fence), a recovery worker reconciles, and the check records the path taken.
 */
export const lostAckFault: FaultModule<'lost-ack'> = {
  kind: 'lost-ack',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: () => [
    {
      localId: 'commit',
      fault: {
        kind: 'lost-ack',
        toxic: 'timeout',
        stream: 'downstream',
        timeout: 0,
        phase: 'commit',
        point: PHASES.commit!.point,
        hit: 1,
      },
      params: {},
      sensitive: true,
    },
  ],
  async run(run): Promise<CellOutcome> {
    const { fixture } = run;
    const proxy = proxyOf(run, 'target');
    if (typeof proxy === 'string') return unverifiedOutcome(proxy);
    await using worker = run.start('first', { stop: { point: PHASES.commit!.point, hit: 1 } });
    if (!(await worker.parked())) return { attempts: [await worker.result()], hit: false };
    const installed = await installToxic(proxy.apiUrl, proxy.name, 'lost-ack');
    let first: AttemptRecord;
    let landed: number;
    try {
      worker.resume();
      first = await worker.result();
      landed = (await fixture.inspector.snapshot({ firstDifference: false })).mutations;
    } finally {
      await installed[Symbol.asyncDispose]();
    }
    await run.expireLeases();
    const recovery = await run.run('recovery');
    const journal = await fixture.openJournal();
    let history;
    try {
      const [id] = await journal.list();
      history = id === undefined ? [] : await journal.history(id);
    } finally {
      await journal.close();
    }
    const steps = history.map((h) => ({
      reason: h.evidence.reason,
      from: h.from_state,
      to: h.to_state,
      holder: h.lease_holder,
    }));
    const stopped = history.at(-1)?.to_state === 'COMMIT_UNKNOWN';
    return {
      attempts: [first, recovery],
      hit: true,
      expectation: { end: stopped ? 'stopped' : 'complete' },
      settle: !stopped,
      extraChecks: [lostAckCheck(landed, first, steps)],
    };
  },
};
