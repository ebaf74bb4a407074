import { describe, expect, it } from 'vitest';
import { generateDataset } from '../../../harness/data/dataset.ts';
import { mssqlPartitionSql, mssqlSeedSql } from './parts.ts';

describe('the SQL Server source part (no server here: its SQL, checked as text)', () => {
  const dataset = generateDataset({ rows: 1200, strategy: 'append', seed: 7 });

  it('creates the table in the dataset types and inserts at most 1000 rows per statement, Unicode-safe', () => {
    const statements = mssqlSeedSql('c_1', dataset, dataset.source);
    expect(statements[0]).toMatch(
      /CREATE TABLE \[c_1\]\.\[events_src\] \(\[id\] BIGINT, \[day\] DATE, \[amount\] FLOAT, \[label\] NVARCHAR\(MAX\), \[big\] BIGINT, \[price\] DECIMAL\(18, 6\), \[at\] DATETIMEOFFSET\(6\)\)/,
    );
    expect(statements).toHaveLength(3);
    expect(statements[1]!.match(/\),\s*\(/g)).toHaveLength(999);
    const quoted = mssqlSeedSql('c_1', dataset, [
      { id: '1', day: '2026-07-05', amount: null, label: "O'Brien \u00e9" },
    ]);
    expect(quoted[1]).toContain("CAST(N'O''Brien \u00e9' AS NVARCHAR(MAX))");
    expect(quoted[1]).toContain('NULL');
    // Numbers travel as their exact text, parsed by the server in the column type (never a float).
    const numbers = mssqlSeedSql('c_1', dataset, [
      { id: '2', big: '9223372036854775807', price: '-123456789012.345678' },
    ]);
    expect(numbers[1]).toContain("CAST(N'9223372036854775807' AS BIGINT)");
    expect(numbers[1]).toContain("CAST(N'-123456789012.345678' AS DECIMAL(18, 6))");
    // An instant travels as ISO-8601 text with its offset, parsed by the server as DATETIMEOFFSET.
    const instants = mssqlSeedSql('c_1', dataset, [{ id: '3', at: '2026-07-05T14:03:27.123456+05:30' }]);
    expect(instants[1]).toContain("CAST(N'2026-07-05T14:03:27.123456+05:30' AS DATETIMEOFFSET(6))");
  });

  it('reads the partition back as text the canonical forms parse, compared in the column type', () => {
    const sql = mssqlPartitionSql('c_1', dataset);
    expect(sql).toContain('CONVERT(VARCHAR(10), [day], 23) AS [day]');
    expect(sql).toContain('CONVERT(VARCHAR(40), [amount], 3) AS [amount]');
    expect(sql).toContain('CAST([big] AS VARCHAR(40)) AS [big]');
    expect(sql).toContain('CAST([price] AS VARCHAR(60)) AS [price]');
    expect(sql).toContain('CONVERT(VARCHAR(40), [at], 127) AS [at]');
    expect(sql).toContain("WHERE [day] = CAST(N'2026-07-05' AS DATE)");
  });
});
