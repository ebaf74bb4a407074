import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { stringify } from 'yaml';
import { unsafeVariantsFor } from '../../src/ports/unsafe-variants.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { ROUTE_CONNECTOR_VERSIONS } from '../../src/cli/certifications.ts';
import { openJournal } from '../../src/cli/journal-url.ts';
import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';
import type { TargetInspector } from '../checkers/target-inspector.ts';
import type { StartedEnvironment } from '../env/environment.ts';
import type { ControllablePostgres, PostgresEndpoint, PostgresServices } from '../env/postgres-services.ts';
import { postgresServicesOf } from '../env/postgres-services.ts';
import type { PostgresCellWorld } from './postgres-cell.ts';
import { adminQuery, setOddSessionSettings } from '../env/postgres-admin.ts';
import { PASSWORD_ENV, buildCellWorld, postgresWorkload } from './postgres-cell.ts';
import { postgresFenceOperations, postgresJournalOperations } from './postgres-loss.ts';
import { sealPostgresStorage } from './postgres-seal.ts';
import type { StorageSeal } from '../faults/storage-seal.ts';
import type { CellFixture, CellWorkloadOptions, FenceOperations, JournalOperations, Route } from './route.ts';

const settingsReady = new WeakMap<PostgresServices, Promise<void>>();

/**
 * Gives the role odd session settings in the provider's cells database, once per environment (a
 * schema per cell is then 9 ms): every worker, source and target alike, connects with them, and
 * the inspector's parity shows whether values still arrive exactly.
 */
function ensureCellsDatabase(services: PostgresServices): Promise<void> {
  let ready = settingsReady.get(services);
  if (!ready) {
    ready = setOddSessionSettings(services.postgres, services.cellsDatabase);
    settingsReady.set(services, ready);
  }
  return ready;
}

/**
 * A PostgreSQL cell. Workers reach target and journal only through this cell's own Toxiproxy
 * proxies (`world.proxies`), which network faults poison. `isolateServers()` moves the cell onto
 * two dedicated servers (target, journal) that server faults may kill or stop without touching
 * other cells; fields are getters so workers started afterwards see the new world.
 */
export class PostgresCellFixture implements CellFixture {
  readonly #dir: string;
  readonly #options: CellWorkloadOptions;
  readonly #services: PostgresServices;
  #world: PostgresCellWorld;
  #servers: { target: ControllablePostgres; journal: ControllablePostgres } | null = null;
  /** Schemas the loss operations created (backups, a forked journal, a moved fence view). */
  readonly #adopted: { server: PostgresEndpoint; schema: string }[] = [];
  readonly journalOps: JournalOperations;
  readonly fenceOps: FenceOperations;

  private constructor(
    dir: string,
    options: CellWorkloadOptions,
    services: PostgresServices,
    world: PostgresCellWorld,
  ) {
    this.#dir = dir;
    this.#options = options;
    this.#services = services;
    this.#world = world;
    const cell = {
      dir,
      options,
      world: () => this.#world,
      adopt: (server: PostgresEndpoint, schema: string) => void this.#adopted.push({ server, schema }),
    };
    this.journalOps = postgresJournalOperations(cell);
    this.fenceOps = postgresFenceOperations(cell);
  }

  static async create(
    dir: string,
    options: CellWorkloadOptions,
    services: PostgresServices,
  ): Promise<PostgresCellFixture> {
    await ensureCellsDatabase(services);
    const server = services.postgres;
    const world = await buildCellWorld(
      dir,
      options,
      { target: server, journal: server, database: services.cellsDatabase },
      services.toxiproxy,
    );
    const fixture = new PostgresCellFixture(dir, options, services, world);
    await fixture.#writeWorkloads();
    return fixture;
  }

  get world(): PostgresCellWorld {
    return this.#world;
  }
  get toxiproxyApi(): string {
    return this.#services.toxiproxy.apiUrl;
  }
  get workloadFile(): string {
    return join(this.#dir, 'workload.yaml');
  }
  get conflictingWorkloadFile(): string {
    return join(this.#dir, 'workload-conflicting.yaml');
  }
  get journalUrl(): string {
    return this.#world.urls.journal;
  }
  get env(): Readonly<Record<string, string>> {
    return {
      [PASSWORD_ENV.target]: this.#world.target.password,
      [PASSWORD_ENV.journal]: this.#world.journal.password,
    };
  }
  get inspector(): TargetInspector {
    return this.#world.inspector;
  }
  /** The dedicated servers after isolateServers(), else null. */
  get servers(): { target: ControllablePostgres; journal: ControllablePostgres } | null {
    return this.#servers;
  }

  /** The fence row's status read straight from the target server (not through the proxy or connector). */
  async fenceStatus(): Promise<string | null> {
    const { target, database, schema } = this.#world;
    const client = new pg.Client({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database,
    });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const exists = await client.query('SELECT to_regclass($1) IS NOT NULL AS ok', [
        `${schema}._dpone_fence`,
      ]);
      if (exists.rows[0]?.ok !== true) return null;
      const { rows } = await client.query(`SELECT status FROM ${schema}._dpone_fence`);
      return (rows[0]?.status as string | undefined) ?? null;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** The conflicting attempt meets listeners instead of servers; PostgreSQL's own counters must not move. */
  sealStorage(workloadFile: string): Promise<StorageSeal> {
    const { target, database, schema } = this.#world;
    return sealPostgresStorage({ dir: this.#dir, server: target, database, schema }, workloadFile);
  }

  openJournal(): Promise<TargetCommitJournalPort> {
    return openJournal(this.#world.urls.journalDirect, {
      cwd: this.#dir,
      env: { [PASSWORD_ENV.journal]: this.#world.journal.password },
    });
  }

  /** Moves this cell onto two fresh servers of its own (before any worker ran). */
  async isolateServers(): Promise<{ target: ControllablePostgres; journal: ControllablePostgres }> {
    const start = this.#services.dedicatedPostgres;
    if (!start)
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        `provider ${this.#services.provider} cannot start dedicated servers for server faults`,
      );
    const target = await start();
    const journal = await start();
    this.#servers = { target, journal };
    await setOddSessionSettings(target, 'postgres');
    await setOddSessionSettings(journal, 'postgres');
    await this.#world.drop();
    this.#world = await buildCellWorld(
      this.#dir,
      this.#options,
      { target, journal, database: 'postgres' },
      this.#services.toxiproxy,
    );
    await this.#writeWorkloads();
    return this.#servers;
  }

  async #writeWorkloads(): Promise<void> {
    await writeFile(this.workloadFile, stringify(postgresWorkload(this.#world, this.#options, 'schema-v1')));
    await writeFile(
      this.conflictingWorkloadFile,
      stringify(postgresWorkload(this.#world, this.#options, 'schema-v2')),
    );
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.#world.inspector.close();
    for (const { server, schema } of this.#adopted)
      await adminQuery(server, this.#world.database, [`DROP SCHEMA IF EXISTS ${schema} CASCADE`]).catch(
        () => undefined,
      );
    if (this.#servers) {
      await this.#servers.target[Symbol.asyncDispose]();
      await this.#servers.journal[Symbol.asyncDispose]();
      await this.#world.drop().catch(() => undefined);
    } else {
      await this.#world.drop();
    }
  }
}

/** PostgreSQL → PostgreSQL through Toxiproxy, on the servers the provider started. */
export const route: Route = {
  id: 'postgres',
  defaultProvider: 'local',
  // The target's flaws (the connector's variants), the executor's (io-before-intent), and those
  // of its capability-none configuration (target.fence: none; replay-unknown).
  unsafeVariants: [
    ...new Set([...unsafeVariantsFor('transactional-commit-marker'), ...unsafeVariantsFor('none')]),
  ].sort(),
  connectorVersion: ROUTE_CONNECTOR_VERSIONS.postgres ?? 'postgres-transactional-commit-marker/2',
  // No "wal-loss": the journal server's WAL is not the harness's to delete.
  lossModes: {
    journal: ['wipe', 'delete', 'rollback', 'fork'],
    fence: ['drop', 'rename', 'move', 'move-temp'],
  },
  async prepareCell(
    cellDir: string,
    options: CellWorkloadOptions,
    environment: StartedEnvironment,
  ): Promise<CellFixture> {
    const services = postgresServicesOf(environment);
    if (!services) {
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        `route postgres needs PostgreSQL and Toxiproxy; provider ${environment.provider} has none`,
      );
    }
    return PostgresCellFixture.create(cellDir, options, services);
  },
};
