import { ENTRY_COLUMNS, HISTORY_COLUMNS } from '../../../src/adapters/journal/journal-row.ts';
import { MSSQL_ENTRY_TABLE as ENTRY, MSSQL_HISTORY_TABLE as HISTORY } from './mssql-schema.ts';

const UPDATED = ENTRY_COLUMNS.filter((c) => c !== 'operation_id' && c !== 'created_at_ms');
const SELECT_ENTRY = `SELECT ${ENTRY_COLUMNS.join(', ')} FROM ${ENTRY}`;

/** The server's wall clock in Unix milliseconds (UTC), as the journal stores instants. */
export const MSSQL_NOW_MS = "DATEDIFF_BIG(MILLISECOND, '19700101', SYSUTCDATETIME())";

/** The statements, built once from the column lists; parameters are always bound, never inlined. */
export const MSSQL_JOURNAL_SQL = {
  createIfAbsent:
    `INSERT INTO ${ENTRY} (${ENTRY_COLUMNS.join(', ')}) ` +
    `SELECT ${ENTRY_COLUMNS.map((c) => `@${c}`).join(', ')} ` +
    `WHERE NOT EXISTS (SELECT 1 FROM ${ENTRY} WITH (UPDLOCK, HOLDLOCK) WHERE operation_id = @operation_id); ` +
    'SELECT @@ROWCOUNT AS affected;',
  /** The entry locked for the write, with the server's `now` the write is planned with. */
  selectForUpdate: `SELECT ${ENTRY_COLUMNS.join(', ')}, ${MSSQL_NOW_MS} AS journal_now_ms FROM ${ENTRY} WITH (UPDLOCK, ROWLOCK) WHERE operation_id = @operation_id`,
  /** The server's `now` for a create, read inside its transaction. */
  now: `SELECT ${MSSQL_NOW_MS} AS journal_now_ms`,
  casUpdate:
    `UPDATE ${ENTRY} SET ${UPDATED.map((c) => `${c} = @${c}`).join(', ')} ` +
    'WHERE operation_id = @operation_id AND version = @expected_version; SELECT @@ROWCOUNT AS affected;',
  insertHistory: `INSERT INTO ${HISTORY} (${HISTORY_COLUMNS.join(', ')}) VALUES (${HISTORY_COLUMNS.map((c) => `@${c}`).join(', ')})`,
  select: `${SELECT_ENTRY} WHERE operation_id = @operation_id`,
  history: `SELECT ${HISTORY_COLUMNS.join(', ')} FROM ${HISTORY} WHERE operation_id = @operation_id ORDER BY version`,
  list: `SELECT operation_id FROM ${ENTRY} ORDER BY operation_id`,
} as const;
