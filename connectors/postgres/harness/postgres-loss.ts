import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import type { FenceLocationReading, FenceReading } from '../../../harness/evidence/evidence-types.ts';
import type { PostgresEndpoint } from './env/postgres-services.ts';
import { adminQuery, withAdminClient } from './env/postgres-admin.ts';
import type { WorkloadEndpoint } from '../../../harness/routes/parts.ts';
import type { FenceOperations, JournalBackup, JournalOperations } from '../../../harness/routes/route.ts';

const JOURNAL_TABLES = ['dpone_commit_journal', 'dpone_commit_journal_history'] as const;

/** The changes a corruption cell makes to a journal's rows behind its back (one per cell, by seed). */
const TAMPERS: readonly { table: string; set: string; where: string; what: string }[] = [
  {
    table: 'dpone_commit_journal',
    set: "state = CASE state WHEN 'PREPARED' THEN 'COMMITTING' ELSE 'PREPARED' END",
    where: '',
    what: "the entry's state changed",
  },
  {
    table: 'dpone_commit_journal',
    set: 'version = version + 1',
    where: '',
    what: "the entry's version raised",
  },
  {
    table: 'dpone_commit_journal',
    set: 'last_epoch = last_epoch + 7, lease_epoch = lease_epoch + 7',
    where: '',
    what: "the entry's epochs raised",
  },
  {
    table: 'dpone_commit_journal',
    set: "intent_digest = 'sha256:' || repeat('0', 64)",
    where: '',
    what: "the entry's intent digest replaced",
  },
  {
    table: 'dpone_commit_journal_history',
    set: "evidence = '{}'",
    where: 'WHERE version = (SELECT max(version) FROM {schema}.dpone_commit_journal_history)',
    what: "the latest history row's evidence emptied",
  },
];
const FENCE = '_dpone_fence';
const RENAMED_FENCE = '_dpone_fence_lost';

/** Where a cell's journal or target lives on a PostgreSQL server; `adopt` records schemas to drop with the cell. */
export interface PostgresSite {
  readonly server: PostgresEndpoint;
  readonly database: string;
  readonly schema: string;
  adopt(schema: string): void;
}

async function tablesPresent(client: pg.ClientBase, schema: string): Promise<boolean> {
  const { rows } = await client.query(
    'SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS ok',
    JOURNAL_TABLES.map((table) => `${schema}.${table}`),
  );
  return rows[0]?.ok === true;
}

/**
 * Journal operations on the cell's journal schema, straight on the journal server. `workerUrl`
 * (the journal as workers reach it) gives a forked deployment's URL; `cellDir` holds the
 * pod-local state folder a delete loses with it.
 */
export function postgresJournalOperations(
  site: PostgresSite,
  workerUrl: string,
  cellDir: string,
): JournalOperations {
  let backups = 0;
  const j = site.schema;
  const on = <T>(body: (client: pg.ClientBase) => Promise<T>) =>
    withAdminClient(site.server, site.database, body);
  return {
    async wipe() {
      await on(async (client) => {
        if (await tablesPresent(client, j))
          await client.query(`TRUNCATE ${JOURNAL_TABLES.map((t) => `${j}.${t}`).join(', ')}`);
      });
    },
    async delete() {
      // The journal's database objects are gone; an empty schema stays where the URL points, as a
      // freshly provisioned database would be. The pod-local state folder goes with it.
      await on(async (client) => {
        await client.query(`DROP SCHEMA IF EXISTS ${j} CASCADE`);
        await client.query(`CREATE SCHEMA ${j}`);
      });
      await rm(join(cellDir, 'state'), { recursive: true, force: true });
    },
    async backup(): Promise<JournalBackup> {
      const schema = `${j}_b${++backups}`;
      site.adopt(schema);
      await on(async (client) => {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        await client.query(`CREATE SCHEMA ${schema}`);
        for (const table of JOURNAL_TABLES)
          await client.query(`CREATE TABLE ${schema}.${table} AS SELECT * FROM ${j}.${table}`);
        await client.query('COMMIT');
      });
      return { id: schema };
    },
    async restore(backup: JournalBackup) {
      // TRUNCATE and INSERT: the history's append-only trigger refuses UPDATE and DELETE only.
      await on(async (client) => {
        await client.query('BEGIN');
        await client.query(`TRUNCATE ${JOURNAL_TABLES.map((t) => `${j}.${t}`).join(', ')}`);
        for (const table of JOURNAL_TABLES)
          await client.query(`INSERT INTO ${j}.${table} SELECT * FROM ${backup.id}.${table}`);
        await client.query('COMMIT');
      });
    },
    async tamper(seed) {
      return on(async (client) => {
        if (!(await tablesPresent(client, j))) return null;
        const change = TAMPERS[seed % TAMPERS.length]!;
        await client.query('BEGIN');
        // The history's append-only trigger stands in the way of an UPDATE, as it would of an
        // operator's: a superuser gets past it for this transaction only.
        if (change.table === 'dpone_commit_journal_history')
          await client.query('SET LOCAL session_replication_role = replica');
        const { rowCount } = await client.query(
          `UPDATE ${j}.${change.table} SET ${change.set} ${change.where.replace('{schema}', j)}`,
        );
        await client.query('COMMIT');
        return rowCount ? change.what : null;
      });
    },
    async forkUrl() {
      const schema = `${j}_f`;
      site.adopt(schema);
      await adminQuery(site.server, site.database, [`CREATE SCHEMA IF NOT EXISTS ${schema}`]);
      return withSchema(workerUrl, schema);
    },
    async digest() {
      return on(async (client) => {
        if (!(await tablesPresent(client, j))) return 'absent';
        const parts: string[] = [];
        for (const table of JOURNAL_TABLES) {
          const { rows } = await client.query(
            `SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS d FROM ${j}.${table} t`,
          );
          parts.push(`${table}:${rows[0]?.d as string}`);
        }
        return parts.join(' ');
      });
    },
  };
}

/** The same URL with another `?schema=` (the connection's search_path). */
function withSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}

async function readLocation(
  client: pg.ClientBase,
  schema: string,
  table: string,
  operationId: string,
): Promise<FenceLocationReading> {
  const where = `${schema}.${table}`;
  const exists = await client.query('SELECT to_regclass($1) IS NOT NULL AS ok', [where]);
  if (exists.rows[0]?.ok !== true) return { where, table: false, status: null, epoch: null };
  const { rows } = await client.query(`SELECT status, epoch FROM ${where} WHERE operation_id = $1`, [
    operationId,
  ]);
  const row = rows[0] as { status: string; epoch: string } | undefined;
  return { where, table: true, status: row?.status ?? null, epoch: row ? Number(row.epoch) : null };
}

/** Fence operations on the cell's target schema, straight on the target server (never the proxy). */
export function postgresFenceOperations(site: PostgresSite): FenceOperations {
  const { schema } = site;
  const on = <T>(body: (client: pg.ClientBase) => Promise<T>) =>
    withAdminClient(site.server, site.database, body);
  return {
    async drop() {
      await on((client) => client.query(`DROP TABLE IF EXISTS ${schema}.${FENCE}`));
    },
    async rename() {
      await on((client) =>
        client.query(`ALTER TABLE IF EXISTS ${schema}.${FENCE} RENAME TO ${RENAMED_FENCE}`),
      );
    },
    async read(operationId: string): Promise<FenceReading> {
      return on(async (client) => ({
        locations: [
          await readLocation(client, schema, FENCE, operationId),
          await readLocation(client, schema, RENAMED_FENCE, operationId),
          await readLocation(client, viewSchema(site), FENCE, operationId),
        ],
      }));
    },
  };
}

/** The schema a `move` to another search-path schema points the retry's fence lookup at. */
function viewSchema(site: PostgresSite): string {
  return `${site.schema}_v`;
}

/**
 * The target block of a retry whose fence lookup resolves elsewhere: same operation, same
 * (schema-qualified) target table; only the unqualified fence lookup moves, to another schema on
 * the search path or to the session's pg_temp.
 */
export async function movedTarget(
  site: PostgresSite,
  target: WorkloadEndpoint,
  view: 'schema' | 'temp',
): Promise<WorkloadEndpoint> {
  const schema = view === 'temp' ? 'pg_temp' : viewSchema(site);
  if (view === 'schema') {
    site.adopt(schema);
    await adminQuery(site.server, site.database, [`CREATE SCHEMA IF NOT EXISTS ${schema}`]);
  }
  return { ...target, url: withSchema(target.url, schema), table: `${site.schema}.${target.table}` };
}
