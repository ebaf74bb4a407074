import type { StatementPoints } from '../../../ports/statement-points.ts';
import type { MarkerDialect, MutationTx } from './marker-dialect.ts';

/**
 * The dialect a marker target is handed, seen statement by statement: every call that sends a
 * statement to the database (a batch, a read, and inside the mutation's transaction each run, the
 * partition's delete, the rows' load, COMMIT and ROLLBACK) passes a statement point before it and
 * after it returned. This is the seam every transactional target shares (built-in dialects and a
 * plug-in's alike), so a kill can land between any two statements of a step without the connector
 * doing anything. The transaction's BEGIN is the dialect's own and has no point: nothing is durable
 * before the first statement in it. Inactive points: the dialect itself, unchanged.
 */
export function observedDialect(dialect: MarkerDialect, points: StatementPoints): MarkerDialect {
  if (!points.active) return dialect;
  const observedTx = (tx: MutationTx): MutationTx => ({
    run: (sql, params) => points.around(() => tx.run(sql, params)),
    deletePartition: (column, value) => points.around(() => tx.deletePartition(column, value)),
    insertRows: (rows) => points.around(() => tx.insertRows(rows)),
    commit: () => points.around(() => tx.commit()),
    rollback: () => points.around(() => tx.rollback()),
  });
  return {
    label: dialect.label,
    sql: dialect.sql,
    batch: (statements, params) => points.around(() => dialect.batch(statements, params)),
    read: (statement, params) => points.around(() => dialect.read(statement, params)),
    mutation: (body) => dialect.mutation((tx) => body(observedTx(tx))),
    ...(dialect.refineError
      ? { refineError: (step, error, fallback) => dialect.refineError!(step, error, fallback) }
      : {}),
    close: () => dialect.close(),
  };
}
