import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { CLICKHOUSE_ERROR_CODES, clickHouseCause } from './clickhouse-error-codes.ts';
import { classifyClickHouseError, namedColumn } from './clickhouse-errors.ts';

const DIAGNOSTICS = [
  'Code: 27, e.displayText() = DB::Exception: Cannot parse input: expected \\n before: secret-value\\n: (at row 1)',
  '',
  'Row 1:',
  'Column 0,   name: id,    type: String,        parsed text: "k-secret"',
  'Column 1,   name: price, type: Decimal(9, 2), parsed text: <EMPTY>',
  'ERROR: garbage after Decimal(9, 2): "secret-value<LINE FEED>"',
].join('\n');

/** Issue 29 row 4: ClickHouse errors classed by cause, permanent ones naming the column. */
describe('clickhouse error codes by cause', () => {
  it('each listed code has a cause; unknown codes stay transient (retry-safe), never permanent', () => {
    expect(clickHouseCause(241)).toBe('transient');
    expect(clickHouseCause(27)).toBe('data');
    expect(clickHouseCause(44)).toBe('definition');
    expect(clickHouseCause(99_999)).toBe('transient');
    expect(Object.values(CLICKHOUSE_ERROR_CODES).every((c) => /^[A-Z_]+$/.test(c.name))).toBe(true);
  });

  it('an unknown Enum name (18.16: LOGICAL_ERROR 49) is data only while rows are parsed', () => {
    expect(clickHouseCause(49, true)).toBe('data');
    expect(clickHouseCause(49)).toBe('transient');
    const enumError = new Error(
      "Code: 49, e.displayText() = DB::Exception: Unknown element 'x' for type Enum8",
    );
    expect(classifyClickHouseError(enumError, { inserting: true })).toMatchObject({
      code: ERROR_CODES.DATA_REJECTED,
      message: expect.stringContaining('server code 49 LOGICAL_ERROR'),
    });
    expect(classifyClickHouseError(enumError)).toBeNull();
  });

  it('a LowCardinality column refused at CREATE (44 ILLEGAL_COLUMN) is a permanent definition error', () => {
    const error = classifyClickHouseError(
      new Error(
        'Code: 44, e.displayText() = DB::Exception: Creating columns of type LowCardinality is prohibited',
      ),
    );
    expect(error).toMatchObject({ code: ERROR_CODES.INVALID_INPUT, exitCode: 2 });
    expect(error?.message).toContain('server code 44 ILLEGAL_COLUMN');
  });

  it('names the column the row diagnostics blame, only a workload column, never a value', () => {
    expect(namedColumn(new Error(DIAGNOSTICS), ['id', 'price'])).toBe('price');
    expect(namedColumn(new Error(DIAGNOSTICS), ['id'])).toBeNull();
    const error = classifyClickHouseError(new Error(DIAGNOSTICS), {
      inserting: true,
      columns: ['id', 'price'],
    });
    expect(error).toMatchObject({ code: ERROR_CODES.DATA_REJECTED, fields: { field: 'data.columns.price' } });
    expect(error?.message).toBe(
      'the ClickHouse target refused a value in column price (server code 27 CANNOT_PARSE_INPUT_ASSERTION_FAILED)',
    );
  });
});
