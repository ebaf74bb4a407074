import { describe, expect, it } from 'vitest';
import type { AttemptRecord, CellEvidence, FaultRecord } from '../evidence/evidence-types.ts';
import { ACCEPTANCE_ITEMS } from './acceptance-items.ts';
import { checkedCell } from './fixtures/certified-evidence.ts';
import { lostCommitItem, poolerItem, stallItem } from './postgres-items.ts';

const done: AttemptRecord = {
  pid: 1,
  exit_code: 0,
  signal: null,
  duration_ms: 100,
  last_point: 'state.complete:after',
  role: 'settle',
};

function cell(
  id: string,
  fault: FaultRecord,
  extra: CellEvidence['checks'] = [],
  mutations = 1,
): CellEvidence {
  const base = checkedCell(id, id.split('/')[0]!, fault, [done], { mutations });
  return { ...base, route: 'postgres-to-postgres', checks: [...base.checks, ...extra] };
}

const lane = (mode: string, kind: string, n: number) =>
  cell(`postgres-pooler-${mode}/${kind}-${n}`, { kind, pooler: mode });

const passing = (name: string, verdict: 'PASS' | 'FAIL' = 'PASS') => [{ name, verdict, detail: 'x' }];

describe('issue 28 gate lines', () => {
  it('apply to routes whose target is PostgreSQL only', () => {
    const ids = (route: string) =>
      ACCEPTANCE_ITEMS.filter((item) => item.appliesTo?.(route) ?? true).map((item) => item.id);
    for (const id of ['pooler-values-exact', 'lost-commit-diverged', 'stall-bounded']) {
      expect(ids('postgres-to-postgres')).toContain(id);
      expect(ids('sqlite-to-postgres')).toContain(id);
      expect(ids('sqlite-to-sqlite')).not.toContain(id);
      expect(ids('postgres-to-clickhouse')).not.toContain(id);
    }
  });

  it('pooler lane: decided by counted cells of both modes; zero cells or a missing kind is not PASS', () => {
    const all = [
      ...['session', 'transaction'].flatMap((mode) => [lane(mode, 'crash', 1), lane(mode, 'race', 1)]),
      lane('transaction', 'pause', 1),
    ];
    expect(poolerItem.evaluate(all)).toMatchObject({ status: 'PASS', cells: 5 });
    expect(poolerItem.evaluate([]).status).toBe('FAIL');
    expect(poolerItem.evaluate(all.slice(0, 4))).toMatchObject({ status: 'FAIL', detail: /pause/ });
    // A cell with the direct connection does not count for the lane.
    expect(poolerItem.evaluate([cell('crash/1', { kind: 'crash' })]).status).toBe('FAIL');
  });

  it('lost commit: needs the DIVERGED check and exactly one mutation', () => {
    const good = cell('postgres-lost-commit/a', { kind: 'lost-commit' }, passing('lost-commit-diverged'));
    expect(lostCommitItem.evaluate([good])).toMatchObject({ status: 'PASS', cells: 1 });
    expect(lostCommitItem.evaluate([]).status).toBe('FAIL');
    const blind = cell(
      'postgres-lost-commit/b',
      { kind: 'lost-commit' },
      passing('lost-commit-diverged', 'FAIL'),
    );
    expect(lostCommitItem.evaluate([good, blind]).status).toBe('FAIL');
  });

  it('stalls: every cell bounded, and one of them in the middle of the COPY', () => {
    const at = (phase: string, verdict: 'PASS' | 'FAIL' = 'PASS') =>
      cell(`postgres-stall/${phase}/sigstop`, { kind: 'stall' }, passing('stall-bounded', verdict));
    expect(stallItem.evaluate([at('guard'), at('copy')])).toMatchObject({ status: 'PASS', cells: 2 });
    expect(stallItem.evaluate([at('guard')])).toMatchObject({ status: 'FAIL', detail: /COPY/ });
    expect(stallItem.evaluate([at('guard'), at('copy', 'FAIL')]).status).toBe('FAIL');
    expect(stallItem.evaluate([]).status).toBe('FAIL');
  });
});
