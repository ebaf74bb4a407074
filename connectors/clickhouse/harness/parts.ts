import { CLICKHOUSE_ENGINE } from '../engine.ts';
import { UNSAFE_CLICKHOUSE_VARIANTS } from '../clickhouse-unsafe-variants.ts';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { startedService } from '../../../harness/env/services.ts';
import type { ClickHouseService, DedicatedClickHouse } from './env/clickhouse-endpoint.ts';
import { clickhouseHttp } from './env/clickhouse-endpoint.ts';
import { deleteProxy } from '../../../harness/env/toxiproxy-service.ts';
import { CELL_TARGET_TABLE, cellParity } from '../../../harness/routes/cell-workload.ts';
import type { ConnectorParts, PartCell, TargetPart } from '../../../harness/routes/parts.ts';
import type { ServerControl, ServerKill } from '../../../harness/routes/server-control.ts';
import { buildClickHouseCellWorld } from './clickhouse-cell.ts';
import { clickhouseFenceOperations, clickhouseFingerprint } from './clickhouse-fence-ops.ts';
import { sealClickHouseTarget } from './clickhouse-seal.ts';

/**
 * Where server faults stop the ClickHouse server (SIGKILL: a crash; SIGTERM: a clean shutdown)
 * and start it again: with the staging filled, just before and right after the ATTACH/REPLACE
 * (a restart right after a replace-partition swap is where 18.16 brings the replaced rows back),
 * after the replace's delete was recorded, after the commit was recorded, and once the whole run
 * is done (a restart, while the replaced parts' files may still be on disk, must not undo a completed replace).
 */
const TARGET_KILLS: readonly ServerKill[] = [
  { phase: 'staged', point: 'target.stage:after', signal: 'SIGKILL' },
  { phase: 'swap', point: 'target.commit:before', signal: 'SIGKILL' },
  { phase: 'swapped', point: 'target.commit:after', signal: 'SIGKILL' },
  { phase: 'swapped', point: 'target.commit:after', signal: 'SIGTERM' },
  { phase: 'settled', point: 'target.settle:after', signal: 'SIGKILL' },
  { phase: 'recorded', point: 'target.marker:after', signal: 'SIGTERM' },
  { phase: 'complete', point: 'state.complete:after', signal: 'SIGKILL' },
  { phase: 'complete', point: 'state.complete:after', signal: 'SIGTERM' },
];

/** The staging steps of the ClickHouse protocol, beyond the phases every target shares. */
const STAGING_PHASES: Readonly<Record<string, string>> = {
  stage: 'target.stage:before',
  staged: 'target.stage:after',
  settle: 'target.settle:after',
};

function serviceOf(cell: PartCell): ClickHouseService {
  return startedService<ClickHouseService>(cell.environment, 'clickhouse', 'ClickHouse');
}

/**
 * The harness's own audit (system.part_log, see clickhouse-landings.ts) is flushed before a kill:
 * 18.16 buffers it for seconds, and a landing whose part a later replace removed (two operations
 * on one partition) is then on no record at all. Only the server's log tables are flushed; the
 * target's data are left exactly as the crash finds them.
 */
function serverControl(server: DedicatedClickHouse): ServerControl {
  return {
    label: 'ClickHouse',
    kill: async (signal) => {
      await clickhouseHttp(server.admin, 'SYSTEM FLUSH LOGS', 'flush the audit logs').catch(() => undefined);
      await server.kill(signal);
    },
    start: () => server.restart(),
  };
}

/**
 * A ClickHouse target: database `<tag>` with the target table in the documented shape (String
 * columns, no unique key, PARTITION BY the partition column, the generation columns), seeded with
 * the rows it holds before the load; the inspector counts landings from the server's part log.
 * Workers log in as a password-protected user through a proxy of their own.
 */
export const clickhouseTarget: TargetPart = {
  engine: 'clickhouse',
  capability: 'staging-swap-generation',
  connectorVersion: CLICKHOUSE_ENGINE.target!.version,
  services: ['clickhouse', 'toxiproxy'],
  unsafeVariants: [...UNSAFE_CLICKHOUSE_VARIANTS],
  // No "move": a ClickHouse fence lives in the target URL's database, which names the target too.
  fenceLossModes: ['drop', 'rename'],
  serverKills: TARGET_KILLS,
  networkPhases: STAGING_PHASES,
  async prepare(cell, source) {
    const service = serviceOf(cell);
    const dedicated = cell.dedicated && service.dedicated ? await service.dedicated() : null;
    if (cell.dedicated && !dedicated)
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        `provider ${cell.environment.provider} cannot start dedicated ClickHouse servers for server faults`,
      );
    const server = dedicated ?? service;
    const toxiproxy = cell.environment.services.toxiproxy!;
    const { dataset, options } = cell;
    const proxy = await toxiproxy.createProxy(`${cell.tag}-target`, server.proxyUpstream);
    const world = await buildClickHouseCellWorld(cell.dir, {
      endpoint: server.admin,
      database: cell.tag,
      worker: proxy,
      workerUser: server.worker,
      targetTable: CELL_TARGET_TABLE,
      columns: dataset.columns.map((c) => c.name),
      naturalKey: dataset.naturalKey,
      partition: dataset.partition,
      source: source.rows,
      seedTargetRows: dataset.target,
      parity: cellParity(dataset, options),
    }).catch(async (error: unknown) => {
      await deleteProxy(toxiproxy, proxy.name);
      await dedicated?.[Symbol.asyncDispose]();
      throw error;
    });
    const site = { endpoint: server.admin, database: world.database, table: CELL_TARGET_TABLE };
    return {
      workload: world.target,
      env: world.env,
      inspector: world.inspector,
      proxy,
      fenceOps: clickhouseFenceOperations(() => site),
      fingerprint: () => clickhouseFingerprint(site),
      // The conflicting attempt's URL reaches only a listener; the server's content is compared.
      seal: () => sealClickHouseTarget(site, world.target.url),
      ...(dedicated ? { server: serverControl(dedicated) } : {}),
      async [Symbol.asyncDispose]() {
        await deleteProxy(toxiproxy, proxy.name);
        if (dedicated) await dedicated[Symbol.asyncDispose]();
        else await world.drop();
      },
    };
  },
};

export const parts: ConnectorParts = { engine: 'clickhouse', target: clickhouseTarget };
