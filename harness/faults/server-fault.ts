import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { PostgresCellFixture } from '../routes/postgres-route.ts';
import type { CellOutcome, CellRun, FaultModule } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { postgresServicesOf } from '../env/postgres-services.ts';

type Server = 'target' | 'journal';

interface ServerParams {
  readonly server: Server;
  readonly point: string;
  readonly phase: string;
  /** The journal died before the worker could record COMMITTING: the target must stay untouched. */
  readonly noMutationExpected: boolean;
}

/** Where each server is killed. The target: during the commit; the journal: before the intent and around COMMITTING. */
const KILLS: Readonly<Record<Server, readonly Omit<ServerParams, 'server'>[]>> = {
  target: [
    { phase: 'commit', point: 'target.commit:before', noMutationExpected: false },
    { phase: 'commit-sent', point: 'target.commit:sent', noMutationExpected: false },
  ],
  journal: [
    { phase: 'before-intent', point: 'journal.create:before', noMutationExpected: true },
    { phase: 'entering-committing', point: 'cas:PREPARED->COMMITTING:before', noMutationExpected: true },
    { phase: 'in-committing', point: 'cas:COMMITTING->TARGET_COMMITTED:before', noMutationExpected: false },
  ],
};

function postgresFixture(run: CellRun): PostgresCellFixture {
  const fixture = run.fixture as Partial<PostgresCellFixture>;
  if (typeof fixture.isolateServers !== 'function') {
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'server faults need a route whose servers the harness owns (route postgres, provider local)',
    );
  }
  return fixture as PostgresCellFixture;
}

async function noMutationCheck(fixture: PostgresCellFixture, first: AttemptRecord): Promise<CheckRecord> {
  const snapshot = await fixture.inspector.snapshot();
  const problems: string[] = [];
  if (first.error_code !== ERROR_CODES.JOURNAL_UNAVAILABLE)
    problems.push(
      `the attempt reported ${first.error_code ?? `exit ${first.exit_code}`}, not ${ERROR_CODES.JOURNAL_UNAVAILABLE}`,
    );
  if (snapshot.mutations !== 0 || snapshot.row_count !== 0)
    problems.push(
      `the target shows ${snapshot.mutations} mutations and ${snapshot.row_count} rows while the journal was down`,
    );
  return problems.length > 0
    ? { name: 'journal-unavailable-no-mutation', verdict: 'FAIL', detail: problems.join('; ') }
    : {
        name: 'journal-unavailable-no-mutation',
        verdict: 'PASS',
        detail: `journal down: the attempt stopped with ${ERROR_CODES.JOURNAL_UNAVAILABLE} and the target stayed untouched (audit: 0 mutations)`,
      };
}

/**
 * server-kill: the cell moves onto two servers of its own, a worker parks at the point, the
 * server is SIGKILLed (postmaster and backends), the worker is released into the dead server,
 * then the server restarts (crash recovery) and the runner's settle worker must finish with one
 * mutation. A journal killed before COMMITTING must mean no mutation and JOURNAL_UNAVAILABLE.
 */
export const serverKillFault: FaultModule<'server-kill'> = {
  kind: 'server-kill',
  unavailableIn(environment) {
    const services = postgresServicesOf(environment);
    if (services?.dedicatedPostgres) return null;
    return `provider ${environment.provider} owns no PostgreSQL server it may SIGKILL and restart, so recovery from a server crash cannot be certified on it (provider local can)`;
  },
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan(spec): CellDraft[] {
    const servers = (spec.servers ?? ['target', 'journal']) as Server[];
    return servers.flatMap((server) =>
      KILLS[server].map((kill) => ({
        localId: `${server}/${kill.phase}`,
        fault: {
          kind: 'server-kill',
          server,
          signal: 'SIGKILL',
          phase: kill.phase,
          point: kill.point,
          hit: 1,
        },
        params: { server, ...kill } satisfies ServerParams,
        sensitive: false,
      })),
    );
  },
  async run(run): Promise<CellOutcome> {
    const params = run.cell.params as unknown as ServerParams;
    const fixture = postgresFixture(run);
    const servers = await fixture.isolateServers();
    const victim = servers[params.server];
    await using worker = run.start('first', { stop: { point: params.point, hit: 1 } });
    if (!(await worker.parked())) return { attempts: [await worker.result()], hit: false };
    await victim.killServer();
    let first: AttemptRecord;
    const extraChecks: CheckRecord[] = [];
    try {
      worker.resume();
      first = await worker.result();
      if (params.noMutationExpected) extraChecks.push(await noMutationCheck(fixture, first));
    } finally {
      await victim.startServer();
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
