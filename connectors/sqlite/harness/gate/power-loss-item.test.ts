import { describe, expect, it } from 'vitest';
import type { CellEvidence } from '../../../../harness/evidence/evidence-types.ts';
import { POWER_LOSS_DURABLE, POWER_LOSS_RECOVERY } from '../../../../harness/evidence/check-names.ts';
import { routeAcceptanceItems } from '../../../../src/cli/route-acceptance.ts';
import { acceptanceItems } from '../../../../harness/gate/acceptance-items.ts';
import { routeIds } from '../../../../harness/routes/route-registry.ts';
import { powerLossItem, powerLossTargetItem } from './power-loss-item.ts';
import { fullDiskItem, journalCorruptionItem } from './storage-items.ts';

function cell(
  point: string,
  durable: 'PASS' | 'FAIL' = 'PASS',
  mutations = 1,
  verdict = 'PASS',
): CellEvidence {
  return {
    id: `sqlite-power-loss/journal/${point}#1`,
    verdict,
    variant: null,
    fault: { kind: 'power-loss', storage: 'journal', point, hit: 1 },
    target: { mutations },
    checks: [{ name: POWER_LOSS_DURABLE, verdict: durable, detail: 'x' }],
  } as unknown as CellEvidence;
}

const points = ['cas:PREPARING->PREPARED:after', 'cas:PREPARED->COMMITTING:after', 'target.commit:after'];

describe('the power-loss gate line', () => {
  it('is PASS when every power-loss cell kept its journal and landed one mutation', () => {
    expect(powerLossItem.evaluate(points.map((p) => cell(p)))).toMatchObject({ status: 'PASS', cells: 3 });
  });

  it('is FAIL when no power-loss cell decided it, when a cut took a transition back, or on a second write', () => {
    expect(powerLossItem.evaluate([])).toMatchObject({ status: 'FAIL', cells: 0 });
    expect(powerLossItem.evaluate([cell(points[0]!, 'FAIL'), cell(points[1]!)])).toMatchObject({
      status: 'FAIL',
      detail: `${cell(points[0]!).id}: no passing ${POWER_LOSS_DURABLE} check, or not exactly one mutation`,
    });
    expect(powerLossItem.evaluate([cell(points[0]!, 'PASS', 2, 'FAIL')]).status).toBe('FAIL');
  });

  it("leaves a server's cells to their own line: a failing one does not decide the journal's", () => {
    const server = {
      ...cell(points[0]!, 'FAIL'),
      fault: { kind: 'power-loss', storage: 'server', point: points[0]!, hit: 1 },
    };
    expect(powerLossItem.evaluate([cell(points[0]!), server])).toMatchObject({ status: 'PASS', cells: 1 });
  });

  it('is UNVERIFIED, never PASS, when the filesystem could not be mounted', () => {
    expect(powerLossItem.evaluate([cell(points[0]!), cell(points[1]!, 'PASS', 0, 'UNVERIFIED')]).status).toBe(
      'UNVERIFIED',
    );
  });

  it('is mandatory for routes whose target is SQLite, and only those', () => {
    expect(routeAcceptanceItems('sqlite')).toContain('power-loss-journal-durable');
    expect(routeAcceptanceItems('sqlite-to-sqlite')).toContain('power-loss-journal-durable');
    expectOnSqliteTargets('power-loss-journal-durable');
  });

  it('the full-disk and journal-corruption lines (storage-items.ts) apply to the same routes, and are mandatory there only', () => {
    for (const id of ['full-disk-refused-then-one', 'journal-corruption-detected']) {
      expect(routeAcceptanceItems('sqlite')).toContain(id);
      expectOnSqliteTargets(id);
    }
    const gated = (route: string, item: { readonly id: string }) =>
      acceptanceItems(route).some((each) => each.id === item.id);
    for (const route of ['sqlite', ...routeIds()]) {
      expect(gated(route, fullDiskItem), route).toBe(gated(route, powerLossItem));
      expect(gated(route, journalCorruptionItem), route).toBe(gated(route, powerLossItem));
    }
  });
});

/** Mandatory on every route of the harness whose target is SQLite, on no other (there are others). */
function expectOnSqliteTargets(id: string): void {
  const routes = routeIds();
  for (const route of routes)
    expect(routeAcceptanceItems(route).includes(id), route).toBe(route.endsWith('-to-sqlite'));
  expect(routes.filter((route) => route.endsWith('-to-sqlite')).length).toBeGreaterThan(1);
  expect(routes.filter((route) => !route.endsWith('-to-sqlite')).length).toBeGreaterThan(1);
}

function targetCell(
  point: string,
  { durable = 'PASS', recovery = 'PASS', mutations = 1, verdict = 'PASS' } = {},
): CellEvidence {
  return {
    id: `sqlite-target-power-loss/target/${point}#1`,
    verdict,
    variant: null,
    fault: { kind: 'power-loss', storage: 'target', point, hit: 1, load_survived_cut: 0 },
    target: { mutations },
    checks: [
      { name: POWER_LOSS_DURABLE, verdict: durable, detail: 'x' },
      { name: POWER_LOSS_RECOVERY, verdict: recovery, detail: 'x' },
    ],
  } as unknown as CellEvidence;
}

describe('the power-loss gate line for the target', () => {
  it('is PASS when every target cell kept its committed mutation, said what it found and landed one', () => {
    expect(powerLossTargetItem.evaluate(points.map((p) => targetCell(p)))).toMatchObject({
      status: 'PASS',
      cells: 3,
    });
  });

  it('is decided by the target cells only, and the journal line by the journal cells only', () => {
    const both = [...points.map((p) => cell(p)), targetCell(points[0]!)];
    expect(powerLossTargetItem.evaluate(both)).toMatchObject({ status: 'PASS', cells: 1 });
    expect(powerLossItem.evaluate(both)).toMatchObject({ status: 'PASS', cells: 3 });
    // No target cell at all (an older record, or only the journal scenario ran): never PASS.
    expect(powerLossTargetItem.evaluate(points.map((p) => cell(p)))).toMatchObject({
      status: 'FAIL',
      cells: 0,
    });
  });

  it('is FAIL when the cut took a commit back, the retry misreported what it found, or wrote twice', () => {
    expect(powerLossTargetItem.evaluate([targetCell(points[0]!, { durable: 'FAIL' })]).status).toBe('FAIL');
    expect(powerLossTargetItem.evaluate([targetCell(points[0]!, { recovery: 'FAIL' })])).toMatchObject({
      status: 'FAIL',
      detail: `${targetCell(points[0]!).id}: no passing ${POWER_LOSS_DURABLE} or ${POWER_LOSS_RECOVERY} check, or not exactly one mutation`,
    });
    expect(
      powerLossTargetItem.evaluate([targetCell(points[0]!, { mutations: 2, verdict: 'FAIL' })]).status,
    ).toBe('FAIL');
  });

  it('is UNVERIFIED, never PASS, when the filesystem could not be mounted, and mandatory where the journal line is', () => {
    expect(
      powerLossTargetItem.evaluate([
        targetCell(points[0]!),
        targetCell(points[1]!, { verdict: 'UNVERIFIED' }),
      ]).status,
    ).toBe('UNVERIFIED');
    expect(routeAcceptanceItems('sqlite')).toContain('power-loss-target-durable');
    expectOnSqliteTargets('power-loss-target-durable');
  });
});
