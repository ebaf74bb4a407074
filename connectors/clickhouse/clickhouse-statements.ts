import type { StatementPoints } from '../../src/ports/statement-points.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

/**
 * The ClickHouse session a target is handed, seen statement by statement: every request it sends
 * (a command, a read, an insert) passes a statement point before it and after it returned, so a
 * kill or a cut connection can land between any two statements of the staging/swap protocol.
 * Inactive points: the session itself, unchanged.
 */
export function observedClickHouseSql(sql: ClickHouseSql, points: StatementPoints): ClickHouseSql {
  if (!points.active) return sql;
  return {
    command: (statement, settings) => points.around(() => sql.command(statement, settings)),
    rows: <T extends Record<string, unknown>>(statement: string) =>
      points.around(() => sql.rows<T>(statement)),
    insert: (table, rows) => points.around(() => sql.insert(table, rows)),
    insertTsv: (table, columns, body) => points.around(() => sql.insertTsv(table, columns, body)),
    close: () => sql.close(),
  };
}
