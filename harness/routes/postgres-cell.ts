import { createHash } from 'node:crypto';
import type { PostgresEndpoint, ProxyEndpoint, ToxiproxyService } from '../env/postgres-services.ts';
import { PostgresInspector } from '../checkers/postgres-inspector.ts';
import { adminQuery } from '../env/postgres-admin.ts';
import { cellLabel } from '../data/cell-text.ts';
import { deriveSeed, randomInt, seededRandom } from '../plan/seeded-random.ts';
import type { CellWorkloadOptions } from './route.ts';

export const PG_TABLES = { source: 'events_src', target: 'events' } as const;
export const PG_COLUMNS = ['id', 'day', 'amount', 'label'] as const;
/**
 * Source and target column types. `day` is a date whose day and month both read as a month (a
 * DMY/MDY mix-up moves it instead of failing) and `amount` a double whose shortest exact text
 * needs 17 digits: the role's odd session settings would change both if they leaked through.
 */
export const PG_TYPES: Readonly<Record<(typeof PG_COLUMNS)[number], string>> = {
  id: 'BIGINT',
  day: 'DATE',
  amount: 'DOUBLE PRECISION',
  label: 'TEXT',
};
export const PG_DAY = '2026-07-05';
const NEXT_DAY = '2026-07-06';
const OTHER_DAY_ROWS = 5;
/** Client-side bounds the workers get, so a black-holed proxy ends their calls quickly. */
export const WORKER_TIMEOUTS = 'connect_timeout_ms=8000&query_timeout_ms=4000';
/** Env vars through which workers receive the cell's passwords (never written to files). */
export const PASSWORD_ENV = { target: 'DPONE_PG_CELL_PASSWORD', journal: 'DPONE_JOURNAL_PASSWORD' } as const;

/** One cell's PostgreSQL world: schemas, seeded source, audited target, and the proxies in front. */
export interface PostgresCellWorld {
  readonly schema: string;
  readonly journalSchema: string;
  readonly database: string;
  readonly target: PostgresEndpoint;
  readonly journal: PostgresEndpoint;
  readonly proxies: { readonly target: ProxyEndpoint; readonly journal: ProxyEndpoint };
  readonly inspector: PostgresInspector;
  /** Worker URLs (through the proxies) and the harness's direct journal URL. */
  readonly urls: {
    readonly source: string;
    readonly target: string;
    readonly journal: string;
    readonly journalDirect: string;
  };
  drop(): Promise<void>;
}

function url(host: string, port: number, user: string, database: string, schema: string, extra = ''): string {
  return `postgres://${encodeURIComponent(user)}@${host}:${port}/${database}?schema=${schema}${extra ? `&${extra}` : ''}`;
}

/** A text literal for the admin's seeding SQL (standard_conforming_strings: only ' is special). */
function sqlText(value: string | null): string {
  return value === null ? 'NULL' : `'${value.replaceAll("'", "''")}'`;
}

async function seedSource(
  server: PostgresEndpoint,
  database: string,
  schema: string,
  options: CellWorkloadOptions,
): Promise<void> {
  const random = seededRandom(deriveSeed(options.seed, 'source-rows'));
  const tuples: string[] = [];
  for (let id = 1; id <= options.rows + OTHER_DAY_ROWS; id++) {
    const day = id <= options.rows ? PG_DAY : NEXT_DAY;
    const amount = `${randomInt(random, 1, 100_000)}::float8 / 7`;
    tuples.push(`(${id}, '${day}', ${amount}, ${sqlText(cellLabel(id, randomInt(random, 1, 999)))})`);
  }
  const columns = PG_COLUMNS.map((c) => `${c} ${PG_TYPES[c]}`).join(', ');
  await adminQuery(server, database, [
    `CREATE TABLE ${schema}.${PG_TABLES.source} (${columns})`,
    `INSERT INTO ${schema}.${PG_TABLES.source} (id, day, amount, label) VALUES ${tuples.join(', ')}`,
  ]);
}

/**
 * Builds a fresh world for one cell: schema `c_<hash>` (source + target) on `target`, schema
 * `c_<hash>_j` (journal) on `journal`, one Toxiproxy proxy in front of each server for this cell
 * only, and the harness audit installed before any worker starts.
 */
export async function buildCellWorld(
  cellDir: string,
  options: CellWorkloadOptions,
  servers: {
    readonly target: PostgresEndpoint;
    readonly journal: PostgresEndpoint;
    readonly database: string;
  },
  toxiproxy: ToxiproxyService,
): Promise<PostgresCellWorld> {
  const tag = createHash('sha256')
    .update(`${cellDir}\u0000${Date.now()}\u0000${Math.random()}`)
    .digest('hex')
    .slice(0, 16);
  const schema = `c_${tag}`;
  const journalSchema = `${schema}_j`;
  const { target, journal, database } = servers;
  await adminQuery(target, database, [`CREATE SCHEMA ${schema}`]);
  await adminQuery(journal, database, [`CREATE SCHEMA IF NOT EXISTS ${journalSchema}`]);
  await seedSource(target, database, schema, options);
  const proxies = {
    target: await toxiproxy.createProxy(`${schema}-target`, target.proxyUpstream),
    journal: await toxiproxy.createProxy(`${schema}-journal`, journal.proxyUpstream),
  };
  const inspector = new PostgresInspector({
    connection: {
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database,
    },
    schema,
    targetTable: PG_TABLES.target,
    sourceTable: PG_TABLES.source,
    columns: [...PG_COLUMNS],
    columnTypes: PG_TYPES,
    naturalKey: ['id'],
    partition: { column: 'day', value: PG_DAY },
  });
  await inspector.installAudit();
  return {
    schema,
    journalSchema,
    database,
    target,
    journal,
    proxies,
    inspector,
    urls: {
      source: url(target.host, target.port, target.user, database, schema, WORKER_TIMEOUTS),
      target: url(proxies.target.host, proxies.target.port, target.user, database, schema, WORKER_TIMEOUTS),
      journal: url(
        proxies.journal.host,
        proxies.journal.port,
        journal.user,
        database,
        journalSchema,
        WORKER_TIMEOUTS,
      ),
      journalDirect: url(journal.host, journal.port, journal.user, database, journalSchema),
    },
    async drop() {
      for (const proxy of [proxies.target, proxies.journal]) {
        await fetch(`${toxiproxy.apiUrl}/proxies/${encodeURIComponent(proxy.name)}`, {
          method: 'DELETE',
          signal: AbortSignal.timeout(5000),
        }).catch(() => undefined);
      }
      await adminQuery(target, database, [`DROP SCHEMA IF EXISTS ${schema} CASCADE`]).catch(() => undefined);
      await adminQuery(journal, database, [`DROP SCHEMA IF EXISTS ${journalSchema} CASCADE`]).catch(
        () => undefined,
      );
    },
  };
}

/** The generated workload document for a world (same identity; `schemaFingerprint` changes the intent). */
export function postgresWorkload(
  world: PostgresCellWorld,
  options: CellWorkloadOptions,
  schemaFingerprint: string,
) {
  return {
    identity: {
      release_id: 'cert-release-1',
      deployment_id: 'cert-deployment',
      dag_id: 'certify_dag',
      dag_run_logical_identity: `scheduled__${PG_DAY}`,
      workload_id: 'events_load',
      mapped_partition_identity: `day=${PG_DAY}`,
      canonical_interval: { start: `${PG_DAY}T00:00:00.000Z`, end: `${NEXT_DAY}T00:00:00.000Z` },
      canonical_target_identity: `postgres:${PG_TABLES.target}`,
    },
    intent: {
      pack_fingerprint: 'pack-v1',
      normalized_load_strategy: options.strategy,
      source_snapshot_or_partition_identity: `${PG_TABLES.source}/day=${PG_DAY}`,
      target_contract: `${PG_TABLES.target}(${PG_COLUMNS.join(',')})`,
      schema_fingerprint: schemaFingerprint,
    },
    route: 'postgres',
    source: { url: world.urls.source, table: PG_TABLES.source, password_env: PASSWORD_ENV.target },
    target: {
      url: world.urls.target,
      table: PG_TABLES.target,
      password_env: PASSWORD_ENV.target,
      ...(options.fence ? { fence: options.fence } : {}),
    },
    data: { columns: [...PG_COLUMNS], natural_key: ['id'], partition: { column: 'day', value: PG_DAY } },
    journal: world.urls.journal,
    execution: { lease_ttl_ms: options.leaseTtlMs, state_dir: 'state' },
  };
}
