import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { PostgresCellFixture } from '../routes/postgres-route.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';
import type { ToxicName } from './toxiproxy-switch.ts';
import { TOXICS, installToxic } from './toxiproxy-switch.ts';

/**
 * Each phase of the protocol, the fault point a worker parks at to enter it, and the proxy whose
 * connection that phase uses. The worker is parked, the toxic installed, the worker released.
 */
export const PHASES = {
  'before-intent': { point: 'journal.create:before', proxy: 'journal' },
  'fence-prepare': { point: 'fence.prepare:before', proxy: 'target' },
  mutation: { point: 'target.mutate:begin', proxy: 'target' },
  commit: { point: 'target.commit:before', proxy: 'target' },
  'fence-query': { point: 'fence.query:before', proxy: 'target' },
  'state-complete': { point: 'state.complete:before', proxy: 'journal' },
} as const;
export type Phase = keyof typeof PHASES;

interface NetworkParams {
  readonly phase: Phase;
  readonly toxic: ToxicName;
}

function postgresFixture(run: CellRun): PostgresCellFixture {
  const fixture = run.fixture as Partial<PostgresCellFixture>;
  if (typeof fixture.toxiproxyApi !== 'string' || !fixture.world) {
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'network faults need a route whose workers go through Toxiproxy (route postgres)',
    );
  }
  return fixture as PostgresCellFixture;
}

/** Parks the first worker at the phase's point, installs the toxic, releases it, and removes the toxic after it ended. */
async function poisonedAttempt(
  run: CellRun,
  phase: Phase,
  toxic: ToxicName,
): Promise<{ record: AttemptRecord; hit: boolean }> {
  const fixture = postgresFixture(run);
  const { point, proxy } = PHASES[phase];
  await using worker = run.start('first', { stop: { point, hit: 1 } });
  if (!(await worker.parked())) return { record: await worker.result(), hit: false };
  const installed = await installToxic(fixture.toxiproxyApi, fixture.world.proxies[proxy].name, toxic);
  try {
    worker.resume();
    return { record: await worker.result(), hit: true };
  } finally {
    await installed[Symbol.asyncDispose]();
  }
}

function planNetwork(spec: FaultSpecOf<'network'>): CellDraft[] {
  const phases = (spec.phases ?? Object.keys(PHASES)) as Phase[];
  const toxics = spec.toxics ?? [...TOXICS];
  return phases.flatMap((phase) =>
    toxics.map((toxic) => ({
      localId: `${phase}/${toxic}`,
      fault: {
        kind: 'network',
        toxic,
        phase,
        point: PHASES[phase].point,
        hit: 1,
        proxy: PHASES[phase].proxy,
      },
      params: { phase, toxic } satisfies NetworkParams,
      sensitive: false,
    })),
  );
}

/** network: one cell per (phase, toxic); after the poisoned attempt the runner's settle worker must complete with one mutation. */
export const networkFault: FaultModule<'network'> = {
  kind: 'network',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: (spec) => planNetwork(spec),
  async run(run): Promise<CellOutcome> {
    const { phase, toxic } = run.cell.params as unknown as NetworkParams;
    const first = await poisonedAttempt(run, phase, toxic);
    return { attempts: [first.record], hit: first.hit, expectation: { end: 'complete' } };
  },
};

function lostAckCheck(
  serverCommitted: string | null,
  first: AttemptRecord,
  history: readonly { reason: string; from: string | null; to: string; holder: string | null }[],
): CheckRecord {
  const committing = history.findIndex((h) => h.to === 'COMMITTING');
  const after = history.slice(committing + 1);
  const reconciled = after.find(
    (h) => h.from === 'COMMITTING' && (h.to === 'TARGET_COMMITTED' || h.to === 'COMMIT_UNKNOWN'),
  );
  const problems: string[] = [];
  if (serverCommitted !== 'committed')
    problems.push(`the server did not commit behind the lost reply (fence ${serverCommitted ?? 'absent'})`);
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
    detail: `server committed while the client heard nothing; first attempt ended ${first.error_code ?? `exit ${first.exit_code}`}; the journal went COMMITTING -> ${reconciled!.to} (${reconciled!.reason}) by reconciliation, never by replay`,
  };
}

/**
 * lost-ack: a downstream `timeout` toxic (timeout 0) installed at `target.commit:before`, so the
 * server commits and the client never hears back. The fence is read straight from the server
 * before the toxic goes, a recovery worker reconciles, and the check records the path taken.
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
        point: PHASES.commit.point,
        hit: 1,
      },
      params: {},
      sensitive: true,
    },
  ],
  async run(run): Promise<CellOutcome> {
    const fixture = postgresFixture(run);
    await using worker = run.start('first', { stop: { point: PHASES.commit.point, hit: 1 } });
    if (!(await worker.parked())) return { attempts: [await worker.result()], hit: false };
    const installed = await installToxic(fixture.toxiproxyApi, fixture.world.proxies.target.name, 'lost-ack');
    let first: AttemptRecord;
    let serverCommitted: string | null;
    try {
      worker.resume();
      first = await worker.result();
      serverCommitted = await fixture.fenceStatus();
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
      extraChecks: [lostAckCheck(serverCommitted, first, steps)],
    };
  },
};
