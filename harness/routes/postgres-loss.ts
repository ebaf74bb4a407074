import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { stringify } from 'yaml';
import type { FenceLocationReading, FenceReading } from '../evidence/evidence-types.ts';
import type { PostgresEndpoint } from '../env/postgres-services.ts';
import type { PostgresCellWorld } from './postgres-cell.ts';
import { adminQuery } from '../env/postgres-admin.ts';
import { PG_TABLES, postgresWorkload } from './postgres-cell.ts';
import type { CellWorkloadOptions, FenceOperations, JournalBackup, JournalOperations } from './route.ts';

const JOURNAL_TABLES = ['dpone_commit_journal', 'dpone_commit_journal_history'] as const;
const FENCE = '_dpone_fence';
const RENAMED_FENCE = '_dpone_fence_lost';

/** What the loss operations need of a PostgreSQL cell; `world()` follows a fixture that moved. */
export interface PostgresLossCell {
  readonly dir: string;
  readonly options: CellWorkloadOptions;
  world(): PostgresCellWorld;
  /** Records a schema the operations created, so the fixture drops it with the cell. */
  adopt(server: PostgresEndpoint, schema: string): void;
}

async function query<T>(
  server: PostgresEndpoint,
  database: string,
  body: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database,
    connectionTimeoutMillis: 10_000,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function tablesPresent(client: pg.Client, schema: string): Promise<boolean> {
  const { rows } = await client.query(
    'SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS ok',
    JOURNAL_TABLES.map((table) => `${schema}.${table}`),
  );
  return rows[0]?.ok === true;
}

/** Journal operations on the cell's journal schema, straight on the journal server. */
export function postgresJournalOperations(cell: PostgresLossCell): JournalOperations {
  let backups = 0;
  const on = <T>(body: (client: pg.Client, world: PostgresCellWorld) => Promise<T>) => {
    const world = cell.world();
    return query(world.journal, world.database, (client) => body(client, world));
  };
  return {
    async wipe() {
      await on(async (client, { journalSchema: j }) => {
        if (await tablesPresent(client, j))
          await client.query(`TRUNCATE ${JOURNAL_TABLES.map((t) => `${j}.${t}`).join(', ')}`);
      });
    },
    async delete() {
      // The journal's database objects are gone; an empty schema stays where the URL points, as a
      // freshly provisioned database would be. The pod-local state folder goes with it.
      await on(async (client, { journalSchema: j }) => {
        await client.query(`DROP SCHEMA IF EXISTS ${j} CASCADE`);
        await client.query(`CREATE SCHEMA ${j}`);
      });
      await rm(join(cell.dir, 'state'), { recursive: true, force: true });
    },
    async backup(): Promise<JournalBackup> {
      const world = cell.world();
      const schema = `${world.journalSchema}_b${++backups}`;
      cell.adopt(world.journal, schema);
      await on(async (client, { journalSchema: j }) => {
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
      await on(async (client, { journalSchema: j }) => {
        await client.query('BEGIN');
        await client.query(`TRUNCATE ${JOURNAL_TABLES.map((t) => `${j}.${t}`).join(', ')}`);
        for (const table of JOURNAL_TABLES)
          await client.query(`INSERT INTO ${j}.${table} SELECT * FROM ${backup.id}.${table}`);
        await client.query('COMMIT');
      });
    },
    async forkUrl() {
      const world = cell.world();
      const schema = `${world.journalSchema}_f`;
      cell.adopt(world.journal, schema);
      await adminQuery(world.journal, world.database, [`CREATE SCHEMA IF NOT EXISTS ${schema}`]);
      return withSchema(world.urls.journal, schema);
    },
    async digest() {
      return on(async (client, { journalSchema: j }) => {
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
  client: pg.Client,
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
export function postgresFenceOperations(cell: PostgresLossCell): FenceOperations {
  const on = <T>(body: (client: pg.Client, world: PostgresCellWorld) => Promise<T>) => {
    const world = cell.world();
    return query(world.target, world.database, (client) => body(client, world));
  };
  const view = () => `${cell.world().schema}_v`;
  return {
    async drop() {
      await on((client, { schema }) => client.query(`DROP TABLE IF EXISTS ${schema}.${FENCE}`));
    },
    async rename() {
      await on((client, { schema }) =>
        client.query(`ALTER TABLE IF EXISTS ${schema}.${FENCE} RENAME TO ${RENAMED_FENCE}`),
      );
    },
    async moveOutOfView(where) {
      // Same operation, same (schema-qualified) target table; only the unqualified fence lookup
      // resolves elsewhere: another schema on the search path, or the session's pg_temp.
      const world = cell.world();
      const schema = where === 'temp' ? 'pg_temp' : view();
      if (where === 'schema') {
        cell.adopt(world.target, schema);
        await adminQuery(world.target, world.database, [`CREATE SCHEMA IF NOT EXISTS ${schema}`]);
      }
      const document = postgresWorkload(world, cell.options, 'schema-v1');
      const moved = {
        ...document,
        target: {
          ...document.target,
          url: withSchema(world.urls.target, schema),
          table: `${world.schema}.${PG_TABLES.target}`,
        },
      };
      const file = join(cell.dir, `workload-fence-${where}.yaml`);
      await writeFile(file, stringify(moved));
      return file;
    },
    async read(operationId: string): Promise<FenceReading> {
      return on(async (client, { schema }) => ({
        locations: [
          await readLocation(client, schema, FENCE, operationId),
          await readLocation(client, schema, RENAMED_FENCE, operationId),
          await readLocation(client, view(), FENCE, operationId),
        ],
      }));
    },
  };
}
