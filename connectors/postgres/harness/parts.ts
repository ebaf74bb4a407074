import { POSTGRES_ENGINE } from '../engine.ts';
import { openJournal } from '../../../src/cli/journal-url.ts';
import { postgresSourceRows } from './inspectors/postgres-source-rows.ts';
import { adminQuery } from './env/postgres-admin.ts';
import { deleteProxy } from '../../../harness/env/toxiproxy-service.ts';
import type { ConnectorParts, JournalPart, SourcePart } from '../../../harness/routes/parts.ts';
import type { ServerKill } from '../../../harness/routes/server-control.ts';
import { postgresJournalOperations } from './postgres-loss.ts';
import { sealPostgresSchema } from './postgres-seal.ts';
import {
  WORKER_TIMEOUTS,
  postgresPlace,
  inspectorBounds,
  postgresUrl,
  releasePlace,
  serverControl,
  workerAddress,
} from './postgres-server.ts';
import { postgresTarget } from './postgres-target-part.ts';
import { PASSWORD_ENV, postgresDump, writePostgresRows } from './postgres-data.ts';

export { PASSWORD_ENV } from './postgres-data.ts';

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A PostgreSQL source: schema `<tag>_s` on the shared server, read by workers directly (no proxy). */
export const postgresSource: SourcePart = {
  engine: 'postgres',
  connectorVersion: POSTGRES_ENGINE.source!.version,
  services: ['postgres'],
  async prepare(cell) {
    const place = await postgresPlace({ ...cell, dedicated: false });
    const { server, database } = place;
    const schema = `${cell.tag}_s`;
    const { dataset } = cell;
    const table = `${schema}.${q(dataset.table)}`;
    await adminQuery(server, database, [`CREATE SCHEMA ${schema}`]);
    await writePostgresRows(server, database, table, dataset, dataset.source);
    const url = postgresUrl(await workerAddress(cell, place), server.user, database, schema, WORKER_TIMEOUTS);
    return {
      workload: {
        url,
        table: dataset.table,
        password_env: PASSWORD_ENV.source,
      },
      env: { [PASSWORD_ENV.source]: server.password },
      rows: postgresSourceRows({
        connection: {
          ...server,
          database,
          ...inspectorBounds(dataset.source.length),
          pooled: place.owned === null,
        },
        schema,
        table: dataset.table,
        columns: dataset.columns.map((c) => c.name),
        partition: dataset.partition,
      }),
      addRows: (rows) => writePostgresRows(server, database, table, dataset, rows),
      seal: () => sealPostgresSchema({ server, database, schema }, 'source', url),
      fingerprint: () => postgresDump(server, database, [table]),
      [Symbol.asyncDispose]: () => releasePlace(place, [schema]),
    };
  },
};

/** The journal server kills: before the intent and around COMMITTING ("journal unavailable" means no mutation). */
const JOURNAL_KILLS: readonly ServerKill[] = [
  { phase: 'before-intent', point: 'journal.create:before', signal: 'SIGKILL', noMutationExpected: true },
  {
    phase: 'entering-committing',
    point: 'cas:PREPARED->COMMITTING:before',
    signal: 'SIGKILL',
    noMutationExpected: true,
  },
  { phase: 'in-committing', point: 'cas:COMMITTING->TARGET_COMMITTED:before', signal: 'SIGKILL' },
];

/** A PostgreSQL journal: schema `<tag>_j`, reached by workers through a proxy of its own. */
export const postgresJournal: JournalPart = {
  kind: 'postgres',
  services: ['postgres', 'toxiproxy'],
  // No "wal-loss": the journal server's WAL is not the harness's to delete.
  lossModes: ['wipe', 'delete', 'rollback', 'fork'],
  serverKills: JOURNAL_KILLS,
  async prepare(cell) {
    const place = await postgresPlace(cell);
    const { server, database } = place;
    const toxiproxy = cell.environment.services.toxiproxy!;
    const schema = `${cell.tag}_j`;
    const adopted: string[] = [];
    await adminQuery(server, database, [`CREATE SCHEMA IF NOT EXISTS ${schema}`]);
    const proxy = await toxiproxy.createProxy(
      `${cell.tag}-journal`,
      (await workerAddress(cell, place)).upstream,
    );
    const url = postgresUrl(proxy, server.user, database, schema, WORKER_TIMEOUTS);
    const site = { server, database, schema, adopt: (s: string) => void adopted.push(s) };
    const env = { [PASSWORD_ENV.journal]: server.password };
    return {
      url,
      env,
      proxy,
      ops: postgresJournalOperations(site, url, cell.dir),
      open: () => openJournal(postgresUrl(server, server.user, database, schema), { cwd: cell.dir, env }),
      fingerprint: () =>
        postgresDump(server, database, [
          `${schema}.dpone_commit_journal`,
          `${schema}.dpone_commit_journal_history`,
        ]),
      ...(place.owned ? { server: serverControl(place.owned, place) } : {}),
      async [Symbol.asyncDispose]() {
        await deleteProxy(toxiproxy, proxy.name);
        await releasePlace(place, [schema, ...adopted]);
      },
    };
  },
};

export const parts: ConnectorParts = {
  engine: 'postgres',
  source: postgresSource,
  target: postgresTarget,
  journal: postgresJournal,
};
