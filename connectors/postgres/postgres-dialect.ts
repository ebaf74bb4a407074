import { DponeError, isDponeError } from '../../src/contracts/errors.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import type {
  FenceParams,
  MarkerDialect,
  SqlResult,
} from '../../src/adapters/connectors/marker-fence/marker-dialect.ts';
import {
  fenceSql,
  onConflictStyle,
  positional,
} from '../../src/adapters/connectors/marker-fence/marker-sql.ts';
import { classifyPostgresError, needing, sqlstateOf } from './postgres-errors.ts';
import type { PostgresFence } from './postgres-fence.ts';
import { BINARY_COPY, binaryCopyRefusal, columnTypes, copyBinary, copyRows } from './postgres-copy.ts';
import { deletePartition } from './postgres-rows.ts';
import type { PostgresSession, SqlClient } from './postgres-session.ts';

/** The PostgreSQL dialect of the transactional-marker kernel (../marker-fence holds the protocol). */

/** undefined_table, invalid_schema_name: the fence's table or schema does not exist. */
const MISSING_RELATION = new Set(['42P01', '3F000']);
const NO_ROWS: SqlResult = { rows: [], affected: 0 };

async function run(client: SqlClient, sql: string, params: FenceParams): Promise<SqlResult> {
  const { text, values } = positional(sql, params);
  const result = await client.query(text, values);
  return { rows: result.rows, affected: result.rowCount ?? 0 };
}

/**
 * The server's error class decides the code where it proves the cause (privilege, missing object,
 * rejected data: a retry cannot help); reading the fence keeps its retry code, with the SQLSTATE.
 */
function refineError(step: 'prepare' | 'mutate' | 'query', error: unknown, fallback: DponeError): DponeError {
  const keep = (fields: { sqlstate?: string }) =>
    new DponeError(fallback.code, fallback.message, { ...fallback.fields, ...fields }, { cause: error });
  if (step === 'query') {
    const sqlstate = sqlstateOf(error);
    return sqlstate === undefined ? fallback : keep({ sqlstate });
  }
  return classifyPostgresError(error, 'target', keep, fallback.fields);
}

export interface PostgresDialectOptions {
  /** Where the fence lives (schema-qualified). */
  readonly fence: PostgresFence;
  /** The target table the mutation writes. */
  readonly table: string;
  readonly faults: FaultPoints;
  /** Reads run inside a READ ONLY transaction (recovery tools: nothing can be written). */
  readonly readOnly?: boolean;
  /** Unsafe variant `copy-never-gives-up` only: the COPY's end is awaited without bound. */
  readonly unboundedCopy?: boolean;
  /**
   * Whether a PostgreSQL source's binary COPY (RowStream.native) may go straight into the table
   * when the column types match; default true. False under `trusts-startup-parameters`, whose
   * flaw lives in the text forms the binary path never makes.
   */
  readonly binaryCopy?: boolean;
  /** Told, once per mutation, why the binary path was not taken (names and types, never values). */
  readonly note?: (message: string) => void;
}

/**
 * The fence and mutation on one PostgreSQL session. The session drops its connection after any
 * driver error (the server then rolls back whatever it left open), so only our own refusals
 * (FENCED) need an explicit ROLLBACK.
 */
export function postgresDialect(session: PostgresSession, options: PostgresDialectOptions): MarkerDialect {
  const { table, faults } = options;
  const fenceName = `${options.fence.schema}._dpone_fence`;
  return {
    label: 'PostgreSQL',
    sql: fenceSql(onConflictStyle(options.fence.table)),
    batch: (statements, params) =>
      session.use((client) =>
        needing(`SELECT, INSERT and UPDATE on the fence table ${fenceName}`, async () => {
          await session.begin(client, 'read-write');
          let last: SqlResult = { rows: [], affected: 0 };
          for (const statement of statements) last = await run(client, statement, params);
          await client.query('COMMIT');
          return last;
        }),
      ),
    read: (statement, params) =>
      session
        .use(async (client) => {
          if (!options.readOnly)
            return needing(`SELECT and UPDATE on the fence table ${fenceName}`, async () => {
              // FOR SHARE waits (up to lock_timeout) for a transaction still holding the fence row,
              // such as our own stalled COMMIT: its answer is then final, never "not committed" for
              // a commit still in flight. Past the bound it fails (FENCE_UNAVAILABLE, a retry).
              await session.begin(client, 'read-write');
              const result = await run(client, `${statement} FOR SHARE`, params);
              await client.query('COMMIT');
              return result;
            });
          await session.begin(client, 'read-only');
          try {
            return await run(client, statement, params);
          } finally {
            await client.query('ROLLBACK');
          }
        })
        .catch((error: unknown) => {
          // No fence table (or schema) where the fence must live: there is no fence here.
          if (MISSING_RELATION.has(String((error as { code?: unknown })?.code))) return NO_ROWS;
          throw error;
        }),
    mutation: (body) =>
      session.use(async (client) => {
        // The fence and the data commit durably (synchronous_commit pinned locally), whatever the
        // server's default: an acknowledged commit a crash can lose would be a lost commit.
        await session.begin(client, 'read-write');
        try {
          return await body({
            run: (sql, params) =>
              needing(`UPDATE on the fence table ${fenceName}`, () => run(client, sql, params)),
            deletePartition: (column, value) =>
              needing(`DELETE on table ${table}`, () => deletePartition(client, table, column, value)),
            insertRows: (rows) =>
              needing(`INSERT on table ${table}`, async () => {
                const bounds = {
                  stallMs: options.unboundedCopy ? null : session.queryTimeoutMs,
                  abandon: () => session.discard(),
                };
                const native = options.binaryCopy === false ? undefined : rows.native;
                if (native?.format === BINARY_COPY) {
                  // Both catalogs read before any byte moves; any difference takes the text path.
                  const refusal = binaryCopyRefusal(
                    rows.columns,
                    await native.columnTypes(),
                    await columnTypes(client, table, rows.columns),
                  );
                  if (refusal === null)
                    return copyBinary(client, table, rows.columns, await native.open(), bounds);
                  options.note?.(
                    `the PostgreSQL source's rows are copied through dpone as text, not as binary COPY: ${refusal}`,
                  );
                }
                return copyRows(client, table, rows, bounds);
              }),
            commit: async () => {
              // node-postgres writes COMMIT to the socket synchronously inside query(); the reply
              // is only observed when awaited. A kill at `target.commit:sent` therefore leaves the
              // server to decide alone: committed or not, only the fence can tell.
              const reply = client.query('COMMIT');
              reply.catch(() => undefined);
              await faults.hit('target.commit:sent');
              await reply;
            },
            rollback: async () => void (await client.query('ROLLBACK')),
          });
        } catch (error) {
          if (isDponeError(error)) await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    refineError,
    close: () => session.close(),
  };
}
