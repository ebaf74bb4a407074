import { DponeError, ERROR_CODES, isDponeError } from '../../src/contracts/errors.ts';
import type { MutationReceipt, MutationRequest, RowStream } from '../../src/ports/connector.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import { clickHouseErrorCode, quoteName, quoteString, stagingTableName } from './clickhouse-config.ts';
import { claimModeOf, claimPartition } from './clickhouse-claims.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import { appendFenceEvent, appendGuardedCommit, fenced } from './clickhouse-fence.ts';
import { readReplaceRecord, sealReplaced } from './clickhouse-replace.ts';
import type { TargetShape } from './clickhouse-rows.ts';
import { partitionLiteral } from './clickhouse-rows.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';
import {
  createStaging,
  dropStaging,
  dropTombstones,
  listStaging,
  sealStaging,
} from './clickhouse-staging.ts';
import type { ValueRule } from './clickhouse-value-rules.ts';
import { valueRule } from './clickhouse-value-rules.ts';
import { encodeChunk, encodedColumns } from './clickhouse-values.ts';

/** The value rule of each streamed column, from the target's column types (none before they are read). */
function valueRules(shape: TargetShape, columns: readonly string[]): (ValueRule | null)[] {
  return columns.map((column) => {
    const i = shape.columns.indexOf(column);
    const type = i < 0 ? undefined : shape.columnTypes?.[i];
    return type === undefined ? null : valueRule(type);
  });
}

export interface GenerationWrite {
  readonly database: string;
  readonly shape: TargetShape;
  readonly request: MutationRequest;
  readonly faults: FaultPoints;
  /** Re-reads the fence log: does it still hold the writer's epoch, with nothing committed yet? */
  readonly isCurrent: () => Promise<boolean>;
  /**
   * The generation tags written into each row; the fence's operation and epoch by default. Only
   * the harness's deliberately unsafe `untagged-staging` variant passes others.
   */
  readonly rowTags?: { readonly operationId: string; readonly epoch: number };
  /** Only the harness's deliberately unsafe `unclaimed-partition` variant sets it: no partition claim. */
  readonly unclaimed?: boolean;
}

/** Where a write failed: before the swap nothing can have reached the target. */
type Phase = 'before-swap' | 'swap' | 'after-swap';

/**
 * Steps (3)-(8) of the protocol in clickhouse-target.ts: announce, stage, check, claim, swap, settle,
 * record, clean up. An empty partition goes the same way with an empty staging table, so a newer
 * holder's seal stops it too. A failure after the staging table exists seals it before the error
 * propagates (a FENCED writer just drops it), so the fence query that follows can answer for sure.
 */
export async function writeGeneration(sql: ClickHouseSql, write: GenerationWrite): Promise<MutationReceipt> {
  const { request, shape, database, faults } = write;
  const { operationId, epoch } = request.fence;
  const partition = partitionLiteral(shape, request.partitionValue);
  const staging = quoteName(`${database}.${stagingTableName(operationId, epoch)}`);
  let staged = false;
  let phase: Phase = 'before-swap';
  // While the rows stream in: a server error then is about a value (18.16: an unknown Enum name is 49).
  let inserting = false;
  try {
    await faults.hit('target.stage:before');
    if (!(await createStaging(sql, database, shape.table, operationId, epoch, shape.stagingSettings))) {
      throw fenced(operationId, `the staging name of epoch ${epoch} is sealed or taken; nothing was written`);
    }
    staged = true;
    inserting = true;
    const rows = await stageRows(sql, staging, request.rows, {
      operationId: write.rowTags?.operationId ?? operationId,
      epoch: write.rowTags?.epoch ?? epoch,
      notNull: new Set([...shape.naturalKey, shape.partitionColumn]),
      rules: valueRules(shape, request.rows.columns),
      naturalKey: shape.naturalKey,
    });
    inserting = false;
    if (rows > 0) await sql.command(`OPTIMIZE TABLE ${staging} PARTITION ${partition} FINAL`);
    await checkStaged(
      sql,
      { database, table: stagingTableName(operationId, epoch), staging },
      shape,
      request.partitionValue,
      rows,
    );
    // Counted only now (the rows streamed in), and logged before the swap: every tag a fence
    // read can count has its `staged` event.
    await appendFenceEvent(sql, request.fence, 'staged', rows);
    await faults.hit('target.stage:after');
    if (!(await write.isCurrent()))
      throw fenced(operationId, `epoch ${epoch} was superseded before the swap`);
    const replace = request.strategy === 'replace-partition';
    // One swap at a time into a partition a replace touches; the tags are read only after it.
    if ((replace || rows > 0) && !write.unclaimed) {
      await claimPartition(sql, database, request.fence, {
        table: shape.table,
        partition: request.partitionValue,
        mode: claimModeOf(request.strategy),
      });
    }
    const record = replace ? await readReplaceRecord(sql, shape.table, shape, request.partitionValue) : null;
    if (record)
      await appendFenceEvent(sql, request.fence, 'replacing', record.replaced.length, JSON.stringify(record));
    await faults.hit('target.commit:before');
    phase = 'swap';
    if (replace || rows > 0) {
      try {
        await sql.command(
          `ALTER TABLE ${quoteName(shape.table)} ${replace ? 'REPLACE' : 'ATTACH'} PARTITION ${partition} FROM ${staging}`,
          rows === 0 ? shape.emptyReplaceSettings : undefined,
        );
      } catch (error) {
        throw await swapRefused(sql, database, operationId, epoch, error);
      }
    }
    phase = 'after-swap';
    await faults.hit('target.commit:after');
    if (record) {
      await sealReplaced(sql, shape.table, shape, request.fence, record);
      await faults.hit('target.settle:after');
    }
    await appendGuardedCommit(sql, staging, request.fence, rows);
    await faults.hit('target.marker:after');
    await cleanup(sql, database, operationId, epoch);
    return { applied: true, rowsWritten: rows, epoch };
  } catch (error) {
    // FENCED before the swap: our own staging is live and useless, drop it. FENCED at the swap: a
    // newer holder sealed it. Anything else: seal it so no later attach can use it.
    const stopped = isDponeError(error, ERROR_CODES.FENCED);
    if (staged && stopped && phase === 'before-swap') {
      await dropStaging(sql, database, operationId, epoch).catch(() => undefined);
    } else if (staged && !stopped) {
      await sealStaging(sql, database, operationId, epoch, true).catch(() => undefined);
    }
    if (isDponeError(error)) throw error;
    // Before the swap, a refusal the server explained (a value it cannot parse, a privilege) is
    // certain: nothing was attached. From the swap on, only the fence can tell.
    const classified =
      phase === 'before-swap'
        ? classifyClickHouseError(error, { operationId, inserting, columns: shape.columns })
        : null;
    if (classified) throw classified;
    throw new DponeError(
      ERROR_CODES.COMMIT_UNKNOWN,
      'the ClickHouse target mutation did not return; only the fence can tell whether it committed',
      { operationId },
      { cause: error },
    );
  }
}

/**
 * Streams the rows into the staging table with ONE insert (TabSeparated, tagged with the
 * generation, chunk by chunk as the source yields them); returns how many. No rows: no insert.
 * A chunk the encoder refuses (NULL in a key) fails the insert with the encoder's own error.
 */
async function stageRows(
  sql: ClickHouseSql,
  staging: string,
  rows: RowStream,
  tags: {
    readonly operationId: string;
    readonly epoch: number;
    readonly notNull: ReadonlySet<string>;
    readonly rules: readonly (ValueRule | null)[];
    readonly naturalKey: readonly string[];
  },
): Promise<number> {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return 0;
  let count = 0;
  let refusal: unknown = null;
  async function* body(): AsyncGenerator<Buffer> {
    for (let next = first; !next.done; next = await iterator.next()) {
      try {
        const encoded = encodeChunk(rows.columns, next.value, tags.operationId, tags.epoch, tags.notNull, {
          rules: tags.rules,
          naturalKey: tags.naturalKey,
          rowsBefore: count,
        });
        count += next.value.length;
        yield encoded;
      } catch (error) {
        refusal = error;
        throw error;
      }
    }
  }
  try {
    await sql.insertTsv(staging, encodedColumns(rows.columns).map(quoteName), body());
  } catch (error) {
    throw refusal ?? error;
  }
  return count;
}

/** Staged: one active part holding exactly the rows, all in the partition (or nothing at all). */
async function checkStaged(
  sql: ClickHouseSql,
  where: { readonly database: string; readonly table: string; readonly staging: string },
  shape: TargetShape,
  partitionValue: string,
  rows: number,
): Promise<void> {
  const [parts] = await sql.rows<{ n: string | number }>(
    `SELECT count() AS n FROM system.parts WHERE database = ${quoteString(where.database)} ` +
      `AND table = ${quoteString(where.table)} AND active`,
  );
  const [inPartition] = await sql.rows<{ n: string | number }>(
    `SELECT count() AS n FROM ${where.staging} ` +
      `WHERE toString(${quoteName(shape.partitionColumn)}) = ${quoteString(partitionValue)}`,
  );
  if (Number(parts?.n) !== (rows > 0 ? 1 : 0) || Number(inPartition?.n) !== rows) {
    throw new DponeError(
      ERROR_CODES.COMMIT_UNKNOWN,
      'the staged generation is not one part of all the rows in its partition; nothing was attached',
    );
  }
}

/**
 * The server answered the swap with an exception (not a lost connection): it did not attach. If
 * our staging name is now sealed or gone, a newer holder fenced us: FENCED, nothing written.
 * Anything else stays an unknown outcome for the fence query to settle.
 */
async function swapRefused(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
  epoch: number,
  error: unknown,
): Promise<unknown> {
  if (clickHouseErrorCode(error) === null) return error;
  let tables;
  try {
    tables = await listStaging(sql, database, operationId);
  } catch {
    return error;
  }
  const mine = tables.find((t) => t.epoch === epoch);
  if (mine === undefined || mine.sealed) {
    return fenced(
      operationId,
      `the staging table of epoch ${epoch} was sealed by a newer holder; nothing was attached`,
    );
  }
  return error;
}

/** After the commit is recorded: drop our staging table and this operation's tombstones. */
async function cleanup(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
  epoch: number,
): Promise<void> {
  try {
    await dropStaging(sql, database, operationId, epoch);
    await dropTombstones(sql, database, operationId);
  } catch {
    // Cleanup is secondary: the next proof of this operation's commit removes what is left.
  }
}
