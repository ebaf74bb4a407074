import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import {
  clickHouseErrorCode,
  parseClickHouseUrl,
  quoteName,
  quoteString,
  stagingEpoch,
  stagingTableName,
} from './clickhouse-config.ts';
import { decideFence, foldFenceLog } from './clickhouse-fence.ts';
import { replacedPredicate } from './clickhouse-replace.ts';
import { targetTableDdl } from './clickhouse-rows.ts';

const INTENT = `sha256:${'1'.repeat(64)}`;
const log = (...events: [string, number, number][]) =>
  foldFenceLog(
    events.map(([kind, epoch, rows]) => ({ kind, epoch, rows, intent_digest: INTENT, holder: `h${epoch}` })),
  );
const tags = (entries: [number, number][], liveStaging = false) => ({
  taggedRows: new Map(entries),
  liveStaging,
});

describe('clickhouse fence decision (each window of the protocol)', () => {
  it('no fence log at all: unknown with no epoch (a lost log proves nothing)', () => {
    expect(decideFence(log(), tags([]))).toEqual({
      status: 'unknown',
      epoch: null,
      committedEpoch: null,
      rowsWritten: null,
      intentDigest: null,
      holder: null,
    });
  });

  it('an installed epoch, nothing staged: not-committed, naming the intent and the holder', () => {
    expect(decideFence(log(['epoch', 1, 0]), tags([]))).toEqual({
      status: 'not-committed',
      epoch: 1,
      committedEpoch: null,
      rowsWritten: null,
      intentDigest: INTENT,
      holder: 'h1',
    });
  });

  it('two holders of one epoch (two journals issued it): the fence names no holder', () => {
    const folded = foldFenceLog([
      { kind: 'epoch', epoch: 1, rows: 0, intent_digest: INTENT, holder: 'a' },
      { kind: 'epoch', epoch: 1, rows: 0, intent_digest: INTENT, holder: 'b' },
    ]);
    expect(decideFence(folded, tags([])).holder).toBeNull();
    expect([...folded.holders.get(1)!].sort()).toEqual(['a', 'b']);
  });

  it('the log belongs to the intent of its first event', () => {
    const folded = foldFenceLog([
      { kind: 'epoch', epoch: 2, rows: 0, intent_digest: 'late', holder: 'b', at_ms: 1 },
      { kind: 'epoch', epoch: 1, rows: 0, intent_digest: 'first', holder: 'a', at_ms: 2 },
    ]);
    expect(folded.intentDigest).toBe('first');
  });

  it('staged but not attached, staging still live: unknown (the swap could still land)', () => {
    const answer = decideFence(log(['epoch', 1, 0], ['staged', 1, 3]), tags([], true));
    expect(answer.status).toBe('unknown');
  });

  it('staged, then sealed by a newer holder: not-committed', () => {
    const answer = decideFence(log(['epoch', 1, 0], ['staged', 1, 3], ['epoch', 2, 0]), tags([]));
    expect(answer).toMatchObject({ status: 'not-committed', epoch: 2 });
  });

  it('attached, fence record missing: the tagged rows prove committed', () => {
    const answer = decideFence(log(['epoch', 1, 0], ['staged', 1, 3], ['epoch', 2, 0]), tags([[1, 3]]));
    expect(answer).toEqual({
      status: 'committed',
      epoch: 2,
      committedEpoch: 1,
      rowsWritten: 3,
      intentDigest: INTENT,
      holder: 'h2',
    });
  });

  it('tagged rows that differ from what was staged: unknown', () => {
    expect(decideFence(log(['staged', 1, 3]), tags([[1, 2]])).status).toBe('unknown');
    expect(decideFence(log(['epoch', 1, 0]), tags([[1, 2]])).status).toBe('unknown');
  });

  it('two generations in the target: unknown, never committed', () => {
    const answer = decideFence(
      log(['staged', 1, 2], ['staged', 2, 2]),
      tags([
        [1, 2],
        [2, 2],
      ]),
    );
    expect(answer.status).toBe('unknown');
  });

  it('committed event without tags (a later replace removed them, or an empty batch): committed', () => {
    expect(decideFence(log(['staged', 1, 0], ['committed', 1, 0]), tags([]))).toMatchObject({
      status: 'committed',
      committedEpoch: 1,
      rowsWritten: 0,
    });
  });

  it('no tags, no committed event, but another replace recorded removing this epoch: committed (issue 29)', () => {
    const landed = log(['epoch', 1, 0], ['staged', 1, 3], ['epoch', 2, 0]);
    expect(decideFence(landed, { ...tags([]), replacedEpochs: new Set([1]) })).toMatchObject({
      status: 'committed',
      committedEpoch: 1,
      rowsWritten: 3,
    });
    expect(decideFence(landed, { ...tags([]), replacedEpochs: new Set([1, 2]) }).status).toBe('unknown');
    expect(decideFence(landed, { ...tags([[2, 3]]), replacedEpochs: new Set([1]) }).status).toBe('unknown');
    expect(decideFence(log(['epoch', 1, 0]), { ...tags([]), replacedEpochs: new Set([1]) }).status).toBe(
      'unknown',
    );
  });

  it('committed event of one epoch but tags of another: unknown', () => {
    const answer = decideFence(log(['staged', 1, 2], ['staged', 2, 2], ['committed', 1, 2]), tags([[2, 2]]));
    expect(answer.status).toBe('unknown');
  });
});

describe('clickhouse replace records', () => {
  it('folds replacing and settled events, and keeps an unreadable record as a replace', () => {
    const record = {
      partition: 'p1',
      replaced: [
        ['', 0],
        ['sha256:x', 4],
      ],
    };
    const folded = foldFenceLog([
      { kind: 'replacing', epoch: 2, rows: 2, detail: JSON.stringify(record) },
      { kind: 'settled', epoch: 2, rows: 0 },
      { kind: 'replacing', epoch: 3, rows: 0, detail: 'not json' },
    ]);
    expect(folded.replacing.get(2)).toEqual(record);
    expect([...folded.settled]).toEqual([2]);
    expect(folded.replacing.get(3)).toEqual({ partition: '', replaced: [] });
  });

  it("keeps the partition's server id of a record, and drops one that could not be an id", () => {
    const id = 'c8d9f7a6b5e4d3c2b1a0f9e8d7c6b5a4';
    const folded = foldFenceLog([
      {
        kind: 'replacing',
        epoch: 1,
        rows: 1,
        detail: JSON.stringify({ partition: 'p1', replaced: [['', 0]], partition_id: id }),
      },
      {
        kind: 'replacing',
        epoch: 2,
        rows: 1,
        detail: JSON.stringify({ partition: 'p1', replaced: [['', 0]], partition_id: "x' OR 1" }),
      },
      {
        kind: 'replacing',
        epoch: 3,
        rows: 1,
        detail: JSON.stringify({ partition: 'p1', replaced: [['', 0]] }),
      },
    ]);
    expect(folded.replacing.get(1)).toEqual({ partition: 'p1', replaced: [['', 0]], partition_id: id });
    // Quoted into a system.parts read: anything but a server's id shape is ignored (the settle then deletes by mutation).
    expect(folded.replacing.get(2)).toEqual({ partition: 'p1', replaced: [['', 0]] });
    expect(folded.replacing.get(3)).toEqual({ partition: 'p1', replaced: [['', 0]] });
  });

  it('deletes only the recorded tags in the partition, quoted', () => {
    expect(
      replacedPredicate(
        { partitionColumn: 'day', partitionType: 'Date' },
        {
          partition: "p'1",
          replaced: [
            ['', 0],
            ['sha256:x', 4],
          ],
        },
      ),
    ).toBe(
      "toString(`day`) = 'p\\'1' AND ((_dpone_op = '' AND _dpone_epoch = 0) OR (_dpone_op = 'sha256:x' AND _dpone_epoch = 4))",
    );
    expect(replacedPredicate({ partitionColumn: 'day' }, { partition: 'p1', replaced: [] })).toBeNull();
  });

  it('adds the plain comparison the partition index can prune with, for a String key only', () => {
    const record = { partition: 'p1', replaced: [['', 0]] as [string, number][] };
    expect(replacedPredicate({ partitionColumn: 'day', partitionType: 'String' }, record)).toBe(
      "toString(`day`) = 'p1' AND `day` = 'p1' AND ((_dpone_op = '' AND _dpone_epoch = 0))",
    );
    expect(replacedPredicate({ partitionColumn: 'n', partitionType: 'UInt32' }, record)).toBe(
      "toString(`n`) = 'p1' AND ((_dpone_op = '' AND _dpone_epoch = 0))",
    );
  });
});

describe('clickhouse config', () => {
  it('parses a clickhouse:// URL without keeping credentials in the HTTP URL', () => {
    const endpoint = parseClickHouseUrl(
      'clickhouse://alice:pw@127.0.0.1:8124/db1?request_timeout_ms=500',
      'env-pw',
      'f',
    );
    expect(endpoint).toEqual({
      httpUrl: 'http://127.0.0.1:8124',
      database: 'db1',
      username: 'alice',
      password: 'env-pw',
      requestTimeoutMs: 500,
    });
  });

  it('rejects other schemes and bad databases without echoing the URL', () => {
    for (const url of ['mysql://u:secret@h/db', 'clickhouse://u:secret@h/bad-db', 'not a url secret']) {
      let error: unknown;
      try {
        parseClickHouseUrl(url, undefined, 'target.url');
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: ERROR_CODES.INVALID_INPUT, fields: { field: 'target.url' } });
      expect((error as Error).message).not.toMatch(/secret/);
    }
  });

  it('quotes names and strings, and names staging tables deterministically per operation and epoch', () => {
    expect(quoteName('db.t`x')).toBe('`db`.`t\\`x`');
    expect(quoteString("a'b\\")).toBe("'a\\'b\\\\'");
    const name = stagingTableName('sha256:abc', 7);
    expect(name).toMatch(/^_dpone_stage_[0-9a-f]{16}_7$/);
    expect(stagingTableName('sha256:abc', 7)).toBe(name);
    expect(stagingEpoch(name, 'sha256:abc')).toBe(7);
    expect(stagingEpoch(name, 'sha256:other')).toBeNull();
  });

  it('reads the server error code from an 18.16 message and from a newer client error', () => {
    expect(
      clickHouseErrorCode(new Error('Code: 57, e.displayText() = DB::Exception: Table x already exists.')),
    ).toBe(57);
    expect(clickHouseErrorCode({ code: '60', message: 'Table does not exist' })).toBe(60);
    expect(clickHouseErrorCode(new Error('socket hang up'))).toBeNull();
  });

  it('creates the target partitioned by the partition column with the generation columns', () => {
    const ddl = targetTableDdl({
      table: 'db.events',
      columns: ['id', 'part', 'v'],
      naturalKey: ['id'],
      partitionColumn: 'part',
    });
    expect(ddl).toContain('`v` Nullable(String)');
    expect(ddl).toContain('`id` String, `part` String');
    expect(ddl).toContain('_dpone_op String, _dpone_epoch UInt64');
    expect(ddl).toContain('PARTITION BY `part` ORDER BY (`id`)');
  });
});
