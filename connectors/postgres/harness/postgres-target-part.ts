import { POSTGRES_ENGINE } from '../engine.ts';
import { UNSAFE_POSTGRES_VARIANTS } from '../postgres-unsafe-variants.ts';
import { PostgresInspector } from './inspectors/postgres-inspector.ts';
import { adminQuery } from './env/postgres-admin.ts';
import { deleteProxy } from '../../../harness/env/toxiproxy-service.ts';
import { CELL_TARGET_TABLE, cellParity } from '../../../harness/routes/cell-workload.ts';
import type { TargetPart } from '../../../harness/routes/parts.ts';
import { TARGET_COMMIT_KILLS } from '../../../harness/routes/server-control.ts';
import { movedTarget, postgresFenceOperations } from './postgres-loss.ts';
import { sealPostgresSchema } from './postgres-seal.ts';
import { PASSWORD_ENV, PG_TYPES, postgresDump, writePostgresRows } from './postgres-data.ts';
import {
  targetWorkerTimeouts,
  postgresPlace,
  inspectorBounds,
  postgresUrl,
  releasePlace,
  serverControl,
  workerAddress,
} from './postgres-server.ts';

/**
 * A PostgreSQL target: schema `<tag>` with the target table in the dataset's types (no keys),
 * seeded with the rows it holds before the load, then audited (a trigger logs the inserting
 * transaction's id); workers reach it through a proxy of its own, with the role's odd session
 * settings in effect.
 */
export const postgresTarget: TargetPart = {
  engine: 'postgres',
  capability: 'transactional-commit-marker',
  plainWrites: true,
  connectorVersion: POSTGRES_ENGINE.target!.version,
  services: ['postgres', 'toxiproxy'],
  unsafeVariants: [...UNSAFE_POSTGRES_VARIANTS],
  fenceLossModes: ['drop', 'rename', 'move', 'move-temp'],
  serverKills: TARGET_COMMIT_KILLS,
  async prepare(cell, source) {
    const place = await postgresPlace(cell);
    const { server, database } = place;
    const toxiproxy = cell.environment.services.toxiproxy!;
    const { dataset, options } = cell;
    const schema = cell.tag;
    const adopted: string[] = [];
    await adminQuery(server, database, [`CREATE SCHEMA IF NOT EXISTS ${schema}`]);
    await writePostgresRows(server, database, `${schema}.${CELL_TARGET_TABLE}`, dataset, dataset.target);
    const inspector = new PostgresInspector({
      connection: {
        ...server,
        database,
        ...inspectorBounds(dataset.source.length),
        pooled: place.owned === null,
      },
      schema,
      targetTable: CELL_TARGET_TABLE,
      sourceTable: dataset.table,
      columns: dataset.columns.map((c) => c.name),
      columnTypes: Object.fromEntries(dataset.columns.map((c) => [c.name, PG_TYPES[c.type]])),
      naturalKey: dataset.naturalKey,
      partition: dataset.partition,
      source: source.rows,
      parity: cellParity(dataset, options),
    });
    await inspector.installAudit();
    const proxy = await toxiproxy.createProxy(
      `${cell.tag}-target`,
      (await workerAddress(cell, place)).upstream,
    );
    const site = { server, database, schema, adopt: (s: string) => void adopted.push(s) };
    const workload = {
      url: postgresUrl(proxy, server.user, database, schema, targetWorkerTimeouts(dataset.source.length)),
      table: CELL_TARGET_TABLE,
      password_env: PASSWORD_ENV.target,
    };
    return {
      workload,
      env: { [PASSWORD_ENV.target]: server.password },
      inspector,
      proxy,
      fenceOps: postgresFenceOperations(site),
      movedOutOfView: (view) => movedTarget(site, workload, view),
      // The fence and the audit live in the target's schema: its statistics cover them.
      seal: () => sealPostgresSchema({ server, database, schema }, 'target', workload.url),
      // The audit table is the harness's own (transaction ids differ between equal states).
      fingerprint: () =>
        postgresDump(server, database, [`${schema}.${CELL_TARGET_TABLE}`, `${schema}._dpone_fence`]),
      ...(place.owned ? { server: serverControl(place.owned, place) } : {}),
      async [Symbol.asyncDispose]() {
        await inspector.close();
        await deleteProxy(toxiproxy, proxy.name);
        await releasePlace(place, [schema, ...adopted]);
      },
    };
  },
};
