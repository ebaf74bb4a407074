import type { FenceParams, MarkerDialect, MutationTx, SqlResult } from './marker-dialect.ts';
import { toAnswer } from './marker-fence.ts';

/**
 * DELIBERATELY BROKEN (the `two-commits` unsafe variant): the fence's marker commits in a
 * transaction of its own AFTER the data's, both inside the one `commit()` of the mutation step.
 * The guard only reads the fence (the same checks, no row turned committed, no lock held); the
 * guard's UPDATE (with the row count) is kept back and sent on the same connection once the data's
 * COMMIT returned, where it commits on its own. Every named fault point sits around `commit()`, none between its two
 * COMMITs: only a kill at a statement boundary sees the data committed while the fence says not.
 */
export function twoCommitsDialect(dialect: MarkerDialect): MarkerDialect {
  const { sql } = dialect;
  const deferredTx = (tx: MutationTx): MutationTx => {
    let marker: FenceParams | null = null;
    return {
      async run(statement, params): Promise<SqlResult> {
        if (statement === sql.guard) {
          const answer = toAnswer(await tx.run(sql.select, { operation_id: params.operation_id ?? null }));
          const matches =
            answer.status !== 'committed' &&
            answer.epoch === params.epoch &&
            answer.intentDigest === params.intent_digest;
          if (matches) marker = { ...params };
          return { rows: [], affected: matches ? 1 : 0 };
        }
        if (statement === sql.recordRows && marker !== null) {
          marker = { ...marker, ...params };
          return { rows: [], affected: 1 };
        }
        return tx.run(statement, params);
      },
      deletePartition: (column, value) => tx.deletePartition(column, value),
      insertRows: (rows) => tx.insertRows(rows),
      async commit() {
        await tx.commit();
        // The data is durable; the marker is not yet: a kill here leaves a fence that denies it.
        // The guard (with the row count) then commits on its own, on the same connection.
        if (marker !== null) await tx.run(sql.guard, marker);
      },
      rollback: () => tx.rollback(),
    };
  };
  return {
    label: dialect.label,
    sql,
    batch: (statements, params) => dialect.batch(statements, params),
    read: (statement, params) => dialect.read(statement, params),
    mutation: (body) => dialect.mutation((tx) => body(deferredTx(tx))),
    ...(dialect.refineError
      ? { refineError: (step, error, fallback) => dialect.refineError!(step, error, fallback) }
      : {}),
    close: () => dialect.close(),
  };
}
