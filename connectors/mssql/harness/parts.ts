import { MSSQL_ENGINE } from '../engine.ts';
import { startedService } from '../../../harness/env/services.ts';
import type { SourceRows } from '../../../harness/inspectors/source-rows.ts';
import type { CellScalar } from '../../../harness/checkers/target-snapshot.ts';
import type { DatasetType } from '../../../harness/data/canonical-value.ts';
import type { Dataset, DatasetRow } from '../../../harness/data/dataset.ts';
import { chunksOf } from '../../../harness/data/dataset.ts';
import { mssqlAdmin } from './env/mssql-admin.ts';
import type { MssqlEndpoint, MssqlService } from './env/mssql-service.ts';
import type { ConnectorParts, PartCell, SourcePart } from '../../../harness/routes/parts.ts';

/** Env var through which workers receive the SQL Server password (never written to a file or URL). */
const PASSWORD_ENV = 'DPONE_MSSQL_SOURCE_PASSWORD';

/** SQL Server column types per dataset type. */
const MSSQL_TYPES: Readonly<Record<DatasetType, string>> = {
  integer: 'BIGINT',
  text: 'NVARCHAR(MAX)',
  date: 'DATE',
  double: 'FLOAT',
  decimal: 'DECIMAL(18, 6)',
  timestamp: 'DATETIMEOFFSET(6)',
};

/**
 * How the harness's own reader reads each type back as text the canonical form parses: ISO dates
 * (style 23), doubles with 17 significant digits (style 3), instants in ISO 8601 with their zone
 * (style 127).
 */
const AS_TEXT: Readonly<Record<DatasetType, (column: string) => string>> = {
  integer: (c) => `CAST(${c} AS VARCHAR(40))`,
  text: (c) => c,
  date: (c) => `CONVERT(VARCHAR(10), ${c}, 23)`,
  double: (c) => `CONVERT(VARCHAR(40), ${c}, 3)`,
  decimal: (c) => `CAST(${c} AS VARCHAR(60))`,
  timestamp: (c) => `CONVERT(VARCHAR(40), ${c}, 127)`,
};

const q = (name: string) => `[${name.replaceAll(']', ']]')}]`;
/** A canonical value as a T-SQL literal of its column type (N'' keeps any Unicode text exact). */
function literal(type: DatasetType, value: string | null): string {
  if (value === null) return 'NULL';
  return `CAST(N'${value.replaceAll("'", "''")}' AS ${MSSQL_TYPES[type]})`;
}

/** The statements that create `schema.table` in the dataset's types and insert the rows. */
export function mssqlSeedSql(schema: string, dataset: Dataset, rows: Iterable<DatasetRow>): string[] {
  const table = `${q(schema)}.${q(dataset.table)}`;
  const columns = dataset.columns.map((c) => `${q(c.name)} ${MSSQL_TYPES[c.type]}`).join(', ');
  const names = dataset.columns.map((c) => q(c.name)).join(', ');
  const statements = [
    `IF OBJECT_ID(N'${schema}.${dataset.table}') IS NULL CREATE TABLE ${table} (${columns})`,
  ];
  // SQL Server takes at most 1000 rows per VALUES list.
  for (const chunk of chunksOf(rows, 1000)) {
    const tuples = chunk.map(
      (row) => `(${dataset.columns.map((c) => literal(c.type, row[c.name] ?? null)).join(', ')})`,
    );
    statements.push(`INSERT INTO ${table} (${names}) VALUES ${tuples.join(', ')}`);
  }
  return statements;
}

/** The harness's reader of the loaded partition: every value as text its canonical form reads. */
export function mssqlPartitionSql(schema: string, dataset: Dataset): string {
  const list = dataset.columns.map((c) => `${AS_TEXT[c.type](q(c.name))} AS ${q(c.name)}`).join(', ');
  const type = dataset.columns.find((c) => c.name === dataset.partition.column)?.type ?? 'text';
  return (
    `SELECT ${list} FROM ${q(schema)}.${q(dataset.table)} ` +
    `WHERE ${q(dataset.partition.column)} = ${literal(type, dataset.partition.value)}`
  );
}

function serviceOf(cell: PartCell): MssqlService {
  return startedService<MssqlService>(cell.environment, 'mssql', 'SQL Server');
}

function readerOf(server: MssqlEndpoint, database: string, schema: string, dataset: Dataset): SourceRows {
  return {
    identity: `mssql:${dataset.table}`,
    async read() {
      const [rows] = await mssqlAdmin(server, database, [mssqlPartitionSql(schema, dataset)]);
      return (rows ?? []) as Record<string, CellScalar>[];
    },
  };
}

/** A SQL Server source: schema `<tag>` in the run's cells database, read by workers directly. */
export const mssqlSource: SourcePart = {
  engine: 'mssql',
  connectorVersion: MSSQL_ENGINE.source!.version,
  services: ['mssql'],
  async prepare(cell) {
    const { server, cellsDatabase } = serviceOf(cell);
    const schema = cell.tag;
    const { dataset } = cell;
    await mssqlAdmin(server, cellsDatabase, [`CREATE SCHEMA ${q(schema)}`]);
    await mssqlAdmin(server, cellsDatabase, mssqlSeedSql(schema, dataset, dataset.source));
    const query = server.query ? `?${server.query}` : '';
    return {
      workload: {
        url: `mssql://${encodeURIComponent(server.user)}@${server.host}:${server.port}/${cellsDatabase}${query}`,
        table: `${schema}.${dataset.table}`,
        password_env: PASSWORD_ENV,
      },
      env: { [PASSWORD_ENV]: server.password },
      rows: readerOf(server, cellsDatabase, schema, dataset),
      addRows: async (rows) =>
        void (await mssqlAdmin(server, cellsDatabase, mssqlSeedSql(schema, dataset, rows))),
      async [Symbol.asyncDispose]() {
        await mssqlAdmin(server, cellsDatabase, [
          `DROP TABLE IF EXISTS ${q(schema)}.${q(dataset.table)}`,
          `DROP SCHEMA IF EXISTS ${q(schema)}`,
        ]).catch(() => undefined);
      },
    };
  },
};

/** SQL Server as a source only: no harness target part yet (its inspector would need a live server to test). */
export const parts: ConnectorParts = { engine: 'mssql', source: mssqlSource };
