import { describe, expect, it } from 'vitest';
import type { BulkLoadRow } from './bulk-load.ts';
import type { Issue37Inputs } from './issue37-targets.ts';
import { issue37Table } from './issue37-targets.ts';
import type { OverheadRow } from './protocol-overhead.ts';
import { renderPerformance } from './performance-doc.ts';

const overhead = (database: string, rows: number, ratio: number): OverheadRow => ({
  database,
  rows,
  bare_ms: 10,
  protocol_ms: 10 * ratio,
  ratio,
  bare_round_trips: 2,
  protocol_round_trips: 10,
  journal_commits: 5,
  protocol_calls: { 'journal.createIntent': 1, 'journal.compareAndSet': 4, 'journal.close': 1 },
});

const bulk = (
  database: string,
  rows: number,
  ratio: number,
  extra: Partial<BulkLoadRow> = {},
): BulkLoadRow => ({
  database,
  rows,
  floor_ms: 100,
  protocol_ms: 100 * ratio,
  ratio,
  floor_cpu_ms: 50,
  protocol_cpu_ms: 80,
  cpu_ratio: null,
  worker_rss_mb: 100,
  worker_flags: '',
  ...extra,
});

const inputs: Issue37Inputs = {
  overhead: [
    overhead('sqlite', 1, 3),
    overhead('postgres', 1, 2),
    overhead('sqlite', 10_000, 1.05),
    overhead('postgres', 10_000, 1.2),
  ],
  bulk: [
    bulk('sqlite', 1_000_000, 3, { bare_ms: 250, bare_ratio: 2.5 }),
    bulk('clickhouse', 1, 20),
    bulk('clickhouse', 100_000, 7),
  ],
  replace: [
    { other_partitions: 1, operation_ms: 200, until_idle_ms: 200, other_parts_rewritten: 1 },
    { other_partitions: 300, operation_ms: 400, until_idle_ms: 500, other_parts_rewritten: 300 },
  ],
  million: { unmeasured: '--quick skips the 1,000,000-row crash cell' },
  suiteWallS: 180,
  suiteCells: 483,
  suiteCpuS: 300,
  suiteSpawns: 1500,
  cpus: 2,
  postgresUnmeasured: undefined,
};

describe("issue 37's target table", () => {
  const table = issue37Table(inputs);
  const row = (figure: string) => table.find((r) => r.figure === figure)!;

  it('has every row of the issue, each with a target and a verdict', () => {
    expect(table).toHaveLength(14);
    for (const r of table) {
      expect(r.target).not.toBe('');
      expect(r.verdict).toMatch(/^(met|missed: .+|not measured: .+)$/);
    }
  });

  it('judges each figure against its own target and says what holds a missed one back', () => {
    expect(row('journal commits / round trips per operation')).toMatchObject({ measured: '5 / 10' });
    expect(row('journal commits / round trips per operation').verdict).toMatch(/journal.compareAndSet 4/);
    expect(row('1 row, protocol vs bare write (sqlite)').verdict).toBe('met');
    expect(row('1 row, protocol vs bare write (postgres)').verdict).toMatch(/^missed: 10 round trips/);
    expect(row('10,000 rows, protocol vs bare write (sqlite)').verdict).toBe('met');
    expect(row("1,000,000 rows vs the engine's own copy (sqlite)").verdict).toMatch(
      /^missed: rows through Node: the bare copy alone .* 2.5×/,
    );
    expect(row('ClickHouse 100,000 rows vs clickhouse-client insert').verdict).toMatch(
      /a 1-row load already takes 2000 ms/,
    );
    expect(row('ClickHouse replace, 300 other partitions vs 1')).toMatchObject({
      measured: expect.stringMatching(/^2.5× until the server is idle/),
      verdict: "missed: the replace rewrote 300 of the other partitions' 300 parts",
    });
  });

  it('names what holds a missed replace or suite back by what the run measured', () => {
    const untouched = issue37Table({
      ...inputs,
      replace: [
        { other_partitions: 1, operation_ms: 200, until_idle_ms: 200, other_parts_rewritten: 0 },
        { other_partitions: 300, operation_ms: 300, until_idle_ms: 300, other_parts_rewritten: 0 },
      ],
    }).find((r) => r.figure === 'ClickHouse replace, 300 other partitions vs 1')!;
    expect(untouched.verdict).toMatch(/^missed: no other partition's part was rewritten; the fence's reads/);
    expect(row('default suite wall time').verdict).toBe(
      'missed: 300 CPU s of work on 2 CPUs; the worker processes are most of it (next row)',
    );
    const noCpu = issue37Table({ ...inputs, suiteCpuS: null }).find(
      (r) => r.figure === 'default suite wall time',
    )!;
    expect(noCpu.verdict).toBe('missed: the worker processes each cell starts (see the CPU row)');
  });

  it("judges the suite's CPU seconds per cell against 45 s of every CPU", () => {
    const figure = 'default suite CPU seconds per cell (run and children)';
    expect(row(figure)).toMatchObject({
      target: '≤ 0.186 s (45 s × 2 CPUs / 483 cells)',
      measured: '0.621 s (300 s for 483 cells)',
      verdict:
        'missed: 1500 worker processes at ≤ 0.2 s each (a Node start and its ~110 modules loaded per attempt)',
    });
    const within = issue37Table({ ...inputs, suiteCpuS: 90 }).find((r) => r.figure === figure)!;
    expect(within.verdict).toBe('met');
    const over = issue37Table({ ...inputs, suiteCpuS: 90.5 }).find((r) => r.figure === figure)!;
    expect(over.verdict).toMatch(/^missed: /);
    const unrun = issue37Table({ ...inputs, suiteCpuS: null }).find((r) => r.figure === figure)!;
    expect(unrun).toMatchObject({ measured: '', verdict: 'not measured: the default suite was not run' });
  });

  it('never prints a figure for what the run did not measure', () => {
    const postgres = row("1,000,000 rows vs the engine's own copy (postgres)");
    expect(postgres).toMatchObject({
      measured: '',
      verdict: 'not measured: --quick skips the 1,000,000-row loads',
    });
    expect(row('harness, 1M-row crash cell: peak RSS').measured).toBe('');
    expect(row('CI wall time').verdict).toMatch(/^not measured: /);
    const noPg = issue37Table({
      ...inputs,
      overhead: inputs.overhead.slice(0, 1),
      postgresUnmeasured: 'no initdb',
    });
    expect(noPg.find((r) => r.figure === '1 row, protocol vs bare write (postgres)')!.verdict).toBe(
      'not measured: no initdb',
    );
  });

  it('renders the table into docs/performance.md, escaping pipes', () => {
    const doc = renderPerformance({
      machine: { cpus: 2, cpu_model: 'x', memory_gb: 8, node: 'v24', date: '2026-12-03T00:00:00Z' },
      quick: true,
      issue37: [{ figure: 'a | b', target: '≤ 2×', measured: '1×', verdict: 'met' }],
    });
    expect(doc).toContain('| a \\| b | ≤ 2× | 1× | met |');
    expect(doc).toContain('npm run bench:quick');
  });
});
