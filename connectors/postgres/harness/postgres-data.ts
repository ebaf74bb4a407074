import type { DatasetType } from '../../../harness/data/canonical-value.ts';
import type { Dataset, DatasetRow } from '../../../harness/data/dataset.ts';
import { chunksOf } from '../../../harness/data/dataset.ts';
import { adminQuery } from './env/postgres-admin.ts';
import type { PostgresEndpoint } from './env/postgres-services.ts';
import { maskedDigest } from '../../../harness/routes/state-fingerprint.ts';

/** Env vars through which workers receive each part's password (never written to files). */
export const PASSWORD_ENV = {
  source: 'DPONE_PG_SOURCE_PASSWORD',
  target: 'DPONE_PG_TARGET_PASSWORD',
  journal: 'DPONE_JOURNAL_PASSWORD',
} as const;

/** PostgreSQL column types per dataset type. */
export const PG_TYPES: Readonly<Record<DatasetType, string>> = {
  integer: 'BIGINT',
  text: 'TEXT',
  date: 'DATE',
  double: 'DOUBLE PRECISION',
  decimal: 'NUMERIC(18, 6)',
  timestamp: 'TIMESTAMPTZ',
};

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;
const ROWS_PER_INSERT = 500;

/** Creates `schema.table` in the dataset's types (no keys) if missing, and inserts the rows as typed text. */
export async function writePostgresRows(
  server: PostgresEndpoint,
  database: string,
  table: string,
  dataset: Dataset,
  rows: Iterable<DatasetRow>,
): Promise<void> {
  const columns = dataset.columns.map((c) => `${q(c.name)} ${PG_TYPES[c.type]}`).join(', ');
  const names = dataset.columns.map((c) => q(c.name)).join(', ');
  await adminQuery(server, database, [`CREATE TABLE IF NOT EXISTS ${table} (${columns})`]);
  for (const chunk of chunksOf(rows, ROWS_PER_INSERT)) {
    const values: (string | null)[] = [];
    const tuples = chunk.map((row) => {
      const cells = dataset.columns.map((c) => {
        values.push(row[c.name] ?? null);
        return `$${values.length}::${PG_TYPES[c.type]}`;
      });
      return `(${cells.join(', ')})`;
    });
    await adminQuery(
      server,
      database,
      [`INSERT INTO ${table} (${names}) VALUES ${tuples.join(', ')}`],
      values,
    );
  }
}

/** The logical content of tables, one text per table (rows sorted), masked and digested. */
export async function postgresDump(
  server: PostgresEndpoint,
  database: string,
  tables: readonly string[],
): Promise<string> {
  const texts: string[] = [];
  for (const table of tables) {
    const [exists] = await adminQuery(
      server,
      database,
      ['SELECT to_regclass($1) IS NOT NULL AS ok'],
      [table],
    );
    if (exists?.rows[0]?.ok !== true) {
      texts.push(`${table}: absent`);
      continue;
    }
    // Without a journal row's checksum (a digest of its fields, holder and instants included: it
    // differs wherever they do and says nothing the fields do not; masked as a file journal's are).
    const row = "(to_jsonb(t) - 'row_checksum')::text";
    const [dump] = await adminQuery(server, database, [
      `SELECT coalesce(string_agg(${row}, '|' ORDER BY ${row}), '') AS d FROM ${table} t`,
    ]);
    texts.push(`${table}: ${dump?.rows[0]?.d as string}`);
  }
  return maskedDigest(texts.join('\n'));
}
