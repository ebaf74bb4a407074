import type { FaultPoints } from '../../src/ports/fault-points.ts';
import type {
  FenceParams,
  MarkerDialect,
  SqlResult,
} from '../../src/adapters/connectors/marker-fence/marker-dialect.ts';
import type { MssqlFence } from './mssql-fence.ts';
import { batchSql } from './mssql-fence.ts';
import { deletePartition, insertRows } from './mssql-rows.ts';
import type { MssqlRequest, MssqlSession } from './mssql-session.ts';
import { MSSQL_ERRORS, bind, mssqlErrorNumber } from './mssql-session.ts';

/** The MSSQL dialect of the transactional-marker kernel (../marker-fence holds the protocol). */
async function run(request: MssqlRequest, sql: string, params: FenceParams): Promise<SqlResult> {
  const result = await bind(request, params).query(sql);
  const counted = result.recordset?.[0]?.affected;
  return {
    rows: result.recordset ?? [],
    affected: counted !== undefined ? Number(counted) : (result.rowsAffected[0] ?? 0),
  };
}

export interface MssqlDialectOptions {
  /** Where the fence lives (schema-qualified) and its statements. */
  readonly fence: MssqlFence;
  /** The target table the mutation writes. */
  readonly table: string;
  readonly faults: FaultPoints;
}

/**
 * The fence and mutation on one MSSQL session (a pool thrown away after any driver error). A
 * batch runs as ONE request in a READ COMMITTED transaction; a lost insert race or a deadlock
 * (the server rolled us back, nothing changed) is tried again, twice at most.
 */
export function mssqlDialect(session: MssqlSession, options: MssqlDialectOptions): MarkerDialect {
  const { table, faults } = options;
  return {
    label: 'MSSQL',
    sql: options.fence.sql,
    batch: (statements, params) =>
      session.use(async (pool, driver) => {
        for (let attempt = 1; ; attempt++) {
          const tx = pool.transaction();
          await tx.begin(driver.ISOLATION_LEVEL.READ_COMMITTED);
          try {
            const result = await run(tx.request(), batchSql(statements), params);
            await tx.commit();
            return result;
          } catch (error) {
            await tx.rollback().catch(() => undefined);
            const number = mssqlErrorNumber(error) ?? -1;
            const retriable = MSSQL_ERRORS.uniqueViolation.has(number) || number === MSSQL_ERRORS.deadlock;
            if (!retriable || attempt >= 3) throw error;
          }
        }
      }),
    read: (statement, params) =>
      session
        .use((pool) => run(pool.request(), statement, params))
        .catch((error: unknown) => {
          // "Invalid object name": no fence table where the fence must live, so no fence here.
          if (mssqlErrorNumber(error) === MSSQL_ERRORS.invalidObject) return { rows: [], affected: 0 };
          throw error;
        }),
    mutation: (body) =>
      session.use(async (pool, driver) => {
        const tx = pool.transaction();
        await tx.begin(driver.ISOLATION_LEVEL.READ_COMMITTED);
        let committing = false;
        try {
          return await body({
            run: (sql, params) => run(tx.request(), sql, params),
            deletePartition: (column, value) => deletePartition(tx.request(), table, column, value),
            insertRows: (batch) =>
              insertRows(
                {
                  newTable: (name) => new driver.Table(name),
                  newRequest: () => tx.request(),
                  textType: driver.NVarChar(driver.MAX),
                },
                table,
                batch,
              ),
            commit: async () => {
              committing = true;
              // The driver hands the commit request to its connection one event-loop turn after
              // commit() is called, so two turns pass before `target.commit:sent`: a kill there
              // leaves the server to decide alone, and only the fence can tell what it decided.
              const reply = tx.commit();
              reply.catch(() => undefined);
              for (let turn = 0; turn < 2; turn++)
                await new Promise<void>((resolve) => setImmediate(resolve));
              await faults.hit('target.commit:sent');
              await reply;
            },
            rollback: () => tx.rollback(),
          });
        } catch (error) {
          // Before COMMIT was sent, roll back (FENCED: nothing was written) and so hand the
          // connection back; once it was sent, only the fence can tell what the server decided.
          if (!committing) await tx.rollback().catch(() => undefined);
          throw error;
        }
      }),
    close: () => session.close(),
  };
}
