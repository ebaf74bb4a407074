import { describe, expect, it } from 'vitest';
import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import { rowStreamOf } from '../../src/ports/row-stream.ts';
import { EMPTY_REPLACE_SETTING } from './clickhouse-rows.ts';
import type { TargetShape } from './clickhouse-rows.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';
import { writeGeneration } from './clickhouse-write.ts';

/** A ClickHouse stand-in that records statements and answers every count with 0 and lists with nothing. */
function recordingSql(): {
  sql: ClickHouseSql;
  commands: { sql: string; settings?: Record<string, number> }[];
} {
  const commands: { sql: string; settings?: Record<string, number> }[] = [];
  return {
    commands,
    sql: {
      command: async (sql, settings) =>
        void commands.push({ sql, ...(settings ? { settings: { ...settings } } : {}) }),
      rows: async <T extends Record<string, unknown>>(sql: string) =>
        (sql.includes('count()') ? [{ n: 0 }] : []) as unknown as T[],
      insert: async () => undefined,
      insertTsv: async () => undefined,
      close: async () => undefined,
    },
  };
}

const SHAPE: TargetShape = {
  table: 'db.events',
  columns: ['id', 'day'],
  naturalKey: ['id'],
  partitionColumn: 'day',
  partitionType: 'String',
};

async function emptyReplace(shape: TargetShape) {
  const { sql, commands } = recordingSql();
  await writeGeneration(sql, {
    database: 'db',
    shape,
    request: {
      fence: { operationId: 'op', epoch: 1, intentDigest: 'sha256:i', holder: 'h1' },
      strategy: 'replace-partition',
      partitionColumn: 'day',
      partitionValue: 'd1',
      rows: rowStreamOf(['id', 'day'], []),
    },
    faults: NO_FAULTS,
    isCurrent: async () => true,
  });
  return commands.find((c) => c.sql.includes('REPLACE PARTITION'));
}

describe('the swap of an empty batch', () => {
  it('is REPLACE … FROM the (empty) staging table, sealed like any other', async () => {
    const replace = await emptyReplace({ ...SHAPE, emptyReplaceSettings: {} });
    expect(replace?.sql).toMatch(
      /^ALTER TABLE `db`\.`events` REPLACE PARTITION 'd1' FROM `db`\.`_dpone_stage_[0-9a-f]{16}_1`$/,
    );
  });

  it('asks a current server to allow an empty source, and 18.16 (which lacks the setting) nothing', async () => {
    expect(
      (await emptyReplace({ ...SHAPE, emptyReplaceSettings: { [EMPTY_REPLACE_SETTING]: 1 } }))?.settings,
    ).toEqual({
      [EMPTY_REPLACE_SETTING]: 1,
    });
    expect((await emptyReplace({ ...SHAPE, emptyReplaceSettings: {} }))?.settings).toEqual({});
  });
});
