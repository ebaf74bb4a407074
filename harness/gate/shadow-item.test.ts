import { describe, expect, it } from 'vitest';
import type { CellEvidence } from '../evidence/evidence-types.ts';
import { SHADOW_REPORT } from '../evidence/check-names.ts';
import { acceptanceItems } from './acceptance-items.ts';
import { acceptanceCells } from './fixtures/certified-evidence.ts';
import { loadRoute, routeIds } from '../routes/route-registry.ts';
import { shadowReportItem } from './shadow-item.ts';

const shadowCells = () => acceptanceCells().filter((c) => c.fault.kind === 'shadow' && c.variant === null);

describe('shadow-report-exact (issue 36)', () => {
  // Which engines' routes have it: each engine's gate tests (connectors/<engine>/harness/gate/).
  it('applies to the routes whose target part takes plain writes, and only those (there are both)', async () => {
    const plain = await Promise.all(
      routeIds().map(
        async (route) => [route, (await loadRoute(route)).capabilities.plainWrites === true] as const,
      ),
    );
    for (const [route, plainWrites] of plain)
      expect(
        acceptanceItems(route).some((item) => item.id === 'shadow-report-exact'),
        route,
      ).toBe(plainWrites);
    expect(plain.filter(([, plainWrites]) => plainWrites).length).toBeGreaterThan(0);
    expect(plain.filter(([, plainWrites]) => !plainWrites).length).toBeGreaterThan(0);
  });

  it('passes on the shadow and legacy cells, counted; zero cells is FAIL', () => {
    const cells = shadowCells();
    expect(cells).toHaveLength(9);
    expect(shadowReportItem.evaluate(cells)).toMatchObject({ status: 'PASS', cells: 9 });
    expect(shadowReportItem.evaluate([])).toMatchObject({ status: 'FAIL', cells: 0 });
  });

  it('is not decided without a counted duplicate, a kill before the record, or a legacy cell', () => {
    const cells = shadowCells();
    const without = (keep: (cell: CellEvidence) => boolean) => shadowReportItem.evaluate(cells.filter(keep));
    expect(without((c) => c.fault.mode !== 'legacy')).toMatchObject({
      status: 'FAIL',
      detail: /legacy cell/,
    });
    expect(without((c) => c.fault.unknowable !== 1)).toMatchObject({
      status: 'FAIL',
      detail: /between the commit and its record/,
    });
    expect(
      without((c) => c.fault.mode === 'legacy' || (c.target?.mutations ?? 0) < 2 || c.fault.unknowable === 1),
    ).toMatchObject({ status: 'FAIL', detail: /counted by the report/ });
  });

  it('fails a cell whose report check failed, and one that has no report check at all', () => {
    const [first, ...rest] = shadowCells();
    const failed: CellEvidence = {
      ...first!,
      verdict: 'FAIL',
      checks: first!.checks.map((c) => (c.name === SHADOW_REPORT ? { ...c, verdict: 'FAIL' } : c)),
    };
    expect(shadowReportItem.evaluate([failed, ...rest])).toMatchObject({ status: 'FAIL', cells: 1 });
    const unchecked: CellEvidence = {
      ...first!,
      checks: first!.checks.filter((c) => c.name !== SHADOW_REPORT),
    };
    expect(shadowReportItem.evaluate([unchecked, ...rest])).toMatchObject({
      status: 'FAIL',
      detail: /no passing/,
    });
    const unverified: CellEvidence = { ...first!, verdict: 'UNVERIFIED' };
    expect(shadowReportItem.evaluate([unverified, ...rest]).status).toBe('UNVERIFIED');
  });
});

describe('shadow-report-exact: the Airflow example in shadow mode', () => {
  const cells = acceptanceCells().filter((c) => c.variant === null);
  const airflowShadow = cells.filter((c) => c.airflow?.mode === 'shadow');
  const others = cells.filter((c) => c.airflow?.mode !== 'shadow');
  const relevant = (list: readonly CellEvidence[]) =>
    list.filter((c) => c.fault.kind === 'shadow' || c.fault.kind === 'airflow-live');

  it('is decided by it too, and is not decided without it once Airflow cells ran', () => {
    expect(airflowShadow).toHaveLength(1);
    expect(shadowReportItem.evaluate(relevant(cells))).toMatchObject({ status: 'PASS', cells: 10 });
    expect(shadowReportItem.evaluate(relevant(others))).toMatchObject({
      status: 'FAIL',
      detail: /the Airflow example retried in shadow mode/,
    });
    // Without Airflow cells at all (a run without Airflow), the shadow cells alone decide it.
    expect(shadowReportItem.evaluate(shadowCells())).toMatchObject({ status: 'PASS', cells: 9 });
  });

  it('fails when the Airflow shadow run’s report missed the retry', () => {
    const [cell] = airflowShadow;
    const missed: CellEvidence = {
      ...cell!,
      verdict: 'FAIL',
      checks: cell!.checks.map((c) => (c.name === SHADOW_REPORT ? { ...c, verdict: 'FAIL' } : c)),
    };
    expect(shadowReportItem.evaluate(relevant([...others, missed]))).toMatchObject({ status: 'FAIL' });
  });
});
