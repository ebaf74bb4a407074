import { describe, expect, it } from 'vitest';
import type { DponeError } from '../../src/contracts/errors.ts';
import { parseWorkload } from '../../src/cli/workload-yaml.ts';
import { BUILT_IN_CONNECTORS } from '../../src/cli/engine-table.ts';
import { lineOf, workloadRefusal } from '../../src/cli/workload-yaml.test-support.ts';

const FILE = '/work/pg.yaml';

/** A PostgreSQL workload; `edit` rewrites parts of it. */
function workload(edit: (text: string) => string = (t) => t): string {
  return edit(`identity:
  release_id: r1
  deployment_id: d1
  dag_id: dag
  dag_run_logical_identity: scheduled__2026-07-05
  workload_id: events_load
  mapped_partition_identity: day=2026-07-05
  canonical_interval: { start: '2026-07-05T00:00:00Z', end: '2026-07-06T00:00:00Z' }
  canonical_target_identity: postgres:dw.events
intent:
  pack_fingerprint: p1
  normalized_load_strategy: append
  source_snapshot_or_partition_identity: orders/day=2026-07-05
  target_contract: events(id,day)
  schema_fingerprint: s1
route: postgres
source:
  url: postgres://reader@db.example:5432/app
  table: public.orders
  password_env: SRC_PW
target:
  url: postgres://loader@db.example:5432/dw
  table: dw.events
  password_env: TGT_PW
data:
  columns: [id, day]
  natural_key: [id]
  partition: { column: day, value: '2026-07-05' }
`);
}

const refusal = (text: string): DponeError => workloadRefusal(text, FILE);

const LONG = (tail: string) => `events_${'x'.repeat(56)}${tail}`; // 63 bytes, then the tail

describe('PostgreSQL names at workload load (exit 2)', () => {
  it('accepts the plain workload', () => {
    expect(parseWorkload(workload(), FILE).target).toEqual({
      url: 'postgres://loader@db.example:5432/dw',
      table: 'dw.events',
      password_env: 'TGT_PW',
    });
  });

  it.each([
    ['target.table', 'table: dw.events', 'table: pg_temp.events', /temporary schema/],
    ['target.table', 'table: dw.events', 'table: pg_temp_3.events', /temporary schema/],
    ['target.table', 'table: dw.events', 'table: PG_CATALOG.events', /system schema/],
    ['source.table', 'table: public.orders', 'table: information_schema.tables', /system schema/],
    ['target.url', '5432/dw\n', '5432/dw?schema=pg_temp\n', /temporary schema/],
    ['source.url', '5432/app', '5432/app?schema=pg_toast', /system schema/],
  ])('refuses %s in a temporary or system schema', (field, from, to, why) => {
    const error = refusal(workload((t) => t.replace(from, to)));
    expect(error.fields.field).toBe(field);
    expect(error.message).toMatch(why);
    expect(error.fields.location).toMatch(/^\/work\/pg\.yaml:\d+:\d+$/);
  });

  it('refuses a table name over 63 bytes, which PostgreSQL would truncate onto another table', () => {
    expect(LONG('')).toHaveLength(63);
    expect(
      parseWorkload(
        workload((t) => t.replace('table: dw.events', `table: dw.${LONG('')}`)),
        FILE,
      ).target.table,
    ).toBe(`dw.${LONG('')}`);
    for (const tail of ['_a', '_b', '_c']) {
      const error = refusal(workload((t) => t.replace('table: dw.events', `table: dw.${LONG(tail)}`)));
      expect(error).toMatchObject({ fields: { field: 'target.table' } });
      expect(error.message).toMatch(/65 bytes; PostgreSQL truncates names to 63 bytes/);
    }
  });

  it('refuses a column name over 63 bytes', () => {
    const error = refusal(
      workload((t) => t.replace('columns: [id, day]', `columns: [id, day, ${LONG('_z')}]`)),
    );
    expect(error.fields.field).toBe('data.columns[2]');
  });
});

describe('target.fence_schema', () => {
  const fenceSchema = (schema: string) => (t: string) =>
    t.replace(
      'url: postgres://loader@db.example:5432/dw\n',
      `url: postgres://loader@db.example:5432/dw\n  fence_schema: ${schema}\n`,
    );

  it.each([['pg_temp'], ['pg_temp_3'], ['pg_catalog'], ['information_schema']])(
    'refuses target.fence_schema %s: a temporary or system schema dies or is not ours',
    (schema) => {
      const text = workload(fenceSchema(schema));
      const error = refusal(text);
      expect(error.fields.field).toBe('target.fence_schema');
      expect(error.message).toMatch(/temporary or system schema/);
      expect(error.fields.location).toBe(`${FILE}:${lineOf(text, '  fence_schema:')}:3`);
    },
  );

  it('accepts an ordinary fence schema', () => {
    expect(parseWorkload(workload(fenceSchema('etl_fence')), FILE).target.fence_schema).toBe('etl_fence');
  });
});

describe('a target that is its own source (WorkloadRules.location)', () => {
  const same = (sourceUrl: string, sourceTable: string) => (t: string) =>
    t
      .replace('url: postgres://reader@db.example:5432/app', `url: ${sourceUrl}`)
      .replace('table: public.orders', `table: ${sourceTable}`)
      .replace('table: dw.events', 'table: public.events');

  it('is refused with the default port and schema filled in and the host in any case', () => {
    const error = refusal(workload(same('postgres://reader@DB.example/dw', 'events')));
    expect(error.fields.field).toBe('target.table');
    expect(error.message).toMatch(/the source table itself/);
  });

  it('is another table in another database, or under another exact name', () => {
    expect(() =>
      parseWorkload(workload(same('postgres://reader@db.example/app', 'events')), FILE),
    ).not.toThrow();
    expect(() =>
      parseWorkload(workload(same('postgres://reader@db.example/dw', 'Events')), FILE),
    ).not.toThrow();
  });
});

describe('target.create (opt-in table creation)', () => {
  const create = (columns: string) => (t: string) =>
    t.replace('  password_env: TGT_PW\n', `  password_env: TGT_PW\n  create:\n    columns: ${columns}\n`);

  it('types every column', () => {
    const parsed = parseWorkload(workload(create('{ id: bigint, day: timestamp(3) with time zone }')), FILE);
    expect(parsed.target.create).toEqual({ columns: { id: 'bigint', day: 'timestamp(3) with time zone' } });
    for (const type of [
      'double precision',
      'numeric(12,2)',
      'text[]',
      'dw.money_code',
      'character varying(20)',
    ])
      expect(() => parseWorkload(workload(create(`{ id: bigint, day: "${type}" }`)), FILE)).not.toThrow();
  });

  it.each([
    ['{ id: bigint }', 'target.create.columns', /no type for day/],
    ['{ id: bigint, day: date, extra: text }', 'target.create.columns.extra', /not in data.columns/],
    ['{ id: bigint, day: "date); DROP TABLE x; --" }', 'target.create.columns.day', /PostgreSQL type/],
    ['{ id: bigint, day: "date /* c */" }', 'target.create.columns.day', /PostgreSQL type/],
    ['[id, day]', 'target.create.columns', /map each column/],
  ])('refuses %s', (columns, field, why) => {
    const error = refusal(workload(create(columns)));
    expect(error.fields.field).toBe(field);
    expect(error.message).toMatch(why);
  });

  it('is refused on a route that cannot honour it', () => {
    // A server target (its URL scheme is its name) whose workload rules create no table.
    const other = Object.entries(BUILT_IN_CONNECTORS).find(
      ([, engine]) =>
        engine.target !== undefined &&
        engine.workload?.createColumnType === undefined &&
        engine.naming?.fileUrls !== true,
    )![0];
    const error = refusal(
      workload((t) =>
        create('{ id: bigint, day: date }')(t)
          .replace('route: postgres', `route: postgres-to-${other}`)
          .replace('url: postgres://loader@db.example:5432/dw', `url: ${other}://loader@db.example:1433/dw`),
      ),
    );
    expect(error).toMatchObject({ fields: { field: 'target.create' } });
  });
});

describe('data.partition.allow_empty', () => {
  it('is false unless said, and must be a boolean', () => {
    expect(parseWorkload(workload(), FILE).data.partition).toEqual({ column: 'day', value: '2026-07-05' });
    const allowed = workload((t) =>
      t.replace("value: '2026-07-05' }", "value: '2026-07-05', allow_empty: true }"),
    );
    expect(parseWorkload(allowed, FILE).data.partition.allow_empty).toBe(true);
    const bad = refusal(
      workload((t) => t.replace("value: '2026-07-05' }", "value: '2026-07-05', allow_empty: yes }")),
    );
    expect(bad.fields.field).toBe('data.partition.allow_empty');
  });
});
