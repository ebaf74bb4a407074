import { describe, expect, it } from 'vitest';
import type {
  AttemptRecord,
  CellEvidence,
  FaultRecord,
} from '../../../../harness/evidence/evidence-types.ts';
import { acceptanceItems } from '../../../../harness/gate/acceptance-items.ts';
import { MANDATORY_ACCEPTANCE_ITEMS } from '../../../../src/contracts/certification.ts';
import { routeAcceptanceItems } from '../../../../src/cli/route-acceptance.ts';
import { checkedCell } from '../../../../harness/gate/fixtures/certified-evidence.ts';
import { CONNECTOR_PARTS, EMBEDDED_ENGINE } from '../../../../harness/routes/route-registry.ts';
import {
  fullDiskServerItem,
  journalCorruptionServerItem,
  lostCommitItem,
  poolerItem,
  powerLossServerItem,
  stallItem,
} from './postgres-items.ts';

/** Another server engine that can be a target: a route from PostgreSQL into it has another target. */
const OTHER_SERVER_TARGET = Object.keys(CONNECTOR_PARTS).find(
  (engine) =>
    engine !== 'postgres' &&
    CONNECTOR_PARTS[engine]!.service !== undefined &&
    CONNECTOR_PARTS[engine]!.roles.includes('target'),
)!;

/** The lines a route into PostgreSQL adds: issue 28's, then (after the shared ones) the server's storage lines. */
const ISSUE_28_ITEMS = ['pooler-values-exact', 'lost-commit-diverged', 'stall-bounded'];
const SERVER_STORAGE_ITEMS = [
  'power-loss-server-durable',
  'full-disk-server-refused-then-one',
  'journal-corruption-server-detected',
];

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

const ids = (route: string) => acceptanceItems(route).map((item) => item.id);

/**
 * A server storage line is UNVERIFIED where its fault could not be set up (`measured` turned
 * UNVERIFIED), and a cell of the same fault `kind` on the embedded engine's journal storage does
 * not decide it.
 */
function expectUnverifiedIgnoringEmbeddedJournal(
  item: Pick<typeof powerLossServerItem, 'evaluate'>,
  measured: CellEvidence,
  kind: string,
): void {
  const unmounted = { ...measured, verdict: 'UNVERIFIED' as const };
  expect(item.evaluate([unmounted]).status).toBe('UNVERIFIED');
  const journalCell = cell(`${EMBEDDED_ENGINE}-${kind}/journal/x#1`, { kind, storage: 'journal' });
  expect(item.evaluate([journalCell]).status).toBe('FAIL');
}

describe('shadow-report-exact (issue 36) on routes into PostgreSQL', () => {
  it('applies to its own route, by alias and by id, and from the embedded source: the target takes plain writes', () => {
    for (const route of ['postgres', 'postgres-to-postgres', `${EMBEDDED_ENGINE}-to-postgres`])
      expect(ids(route), route).toContain('shadow-report-exact');
  });
});

/** A line's own checks, each PASS but `failing` (when one is named), which is FAIL. */
const ownChecks = (names: readonly string[], failing: string | null) =>
  names.flatMap((name) => passing(name, name === failing ? 'FAIL' : 'PASS'));

describe('issue 28 gate lines', () => {
  it('apply to routes whose target is PostgreSQL only', () => {
    for (const id of [...ISSUE_28_ITEMS, ...SERVER_STORAGE_ITEMS]) {
      expect(ids('postgres-to-postgres')).toContain(id);
      expect(ids(`${EMBEDDED_ENGINE}-to-postgres`)).toContain(id);
      expect(ids(`${EMBEDDED_ENGINE}-to-${EMBEDDED_ENGINE}`)).not.toContain(id);
      expect(ids(`postgres-to-${OTHER_SERVER_TARGET}`)).not.toContain(id);
    }
  });

  it('a record lacks them in the order they always had: mandatory, then the target items and the plain-write item', () => {
    expect(routeAcceptanceItems('postgres')).toEqual([
      ...MANDATORY_ACCEPTANCE_ITEMS,
      ...ISSUE_28_ITEMS,
      ...SERVER_STORAGE_ITEMS,
      'shadow-report-exact',
    ]);
    // The gate prints an engine's route lines after the shared fault lines, its storage lines last.
    expect(
      acceptanceItems(`${EMBEDDED_ENGINE}-to-postgres`)
        .map((item) => item.id)
        .slice(6),
    ).toEqual([
      'airflow-one-mutation',
      ...ISSUE_28_ITEMS,
      'clock-skew',
      'shadow-report-exact',
      ...SERVER_STORAGE_ITEMS,
    ]);
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

describe("issue 33's PostgreSQL power-loss line", () => {
  const OWN = ['power-loss-durable', 'power-loss-acknowledged', 'power-loss-recovery', 'atomic-visibility'];
  const cut = (point: string, failing: string | null = null, mutations = 1, survived = 0) =>
    cell(
      `postgres-power-loss/server/${point}#1`,
      { kind: 'power-loss', storage: 'server', point, hit: 1, load_survived_cut: survived },
      ownChecks(OWN, failing),
      mutations,
    );

  it('is PASS when every cut under the server kept what was acknowledged and landed one mutation', () => {
    const verdict = powerLossServerItem.evaluate([
      cut('journal.create:after'),
      cut('cas:TARGET_COMMITTED->COMPLETE:after', null, 1, 1),
    ]);
    expect(verdict).toMatchObject({ status: 'PASS', cells: 2 });
    expect(verdict.detail).toMatch(/1 retries wrote a load/);
  });

  it('is FAIL with no cell, a cut that took an acknowledged commit or COMPLETE, or a second write', () => {
    expect(powerLossServerItem.evaluate([]).status).toBe('FAIL');
    expect(powerLossServerItem.evaluate([cut('target.commit:after', 'power-loss-durable')]).status).toBe(
      'FAIL',
    );
    expect(
      powerLossServerItem.evaluate([cut('cas:TARGET_COMMITTED->COMPLETE:after', 'power-loss-acknowledged')])
        .status,
    ).toBe('FAIL');
    expect(powerLossServerItem.evaluate([cut('target.commit:after', null, 2)]).status).toBe('FAIL');
    // A cell that passed without the fault's own checks (not a server cut at all) does not decide it.
    const bare = cell('postgres-power-loss/server/x#1', { kind: 'power-loss', storage: 'server' });
    expect(powerLossServerItem.evaluate([bare]).status).toBe('FAIL');
  });

  it('is UNVERIFIED where the filesystem could not be mounted, and ignores the embedded journal storages', () => {
    expectUnverifiedIgnoringEmbeddedJournal(powerLossServerItem, cut('journal.create:after'), 'power-loss');
  });
});

describe("issue 33's PostgreSQL full-disk line", () => {
  const OWN = ['storage-full-refused', 'atomic-visibility', 'storage-full-lease'];
  const refused: AttemptRecord = { ...done, exit_code: 18, error_code: 'DPONE_STORAGE_FULL', role: 'first' };
  const fill = (point: string, exit: 18 | 0, failing: string | null = null, mutations = 1): CellEvidence => {
    const base = cell(
      `postgres-full-disk/server/${point}#1`,
      { kind: 'full-disk', storage: 'server', point, hit: 1 },
      ownChecks(OWN, failing),
      mutations,
    );
    return exit === 18 ? { ...base, attempts: [refused, ...base.attempts] } : base;
  };

  it('is PASS when every filled server cell passed its checks, one was refused with exit 18, one mutation each', () => {
    const verdict = fullDiskServerItem.evaluate([
      fill('journal.create:after', 18),
      fill('target.commit:after', 0),
    ]);
    expect(verdict).toMatchObject({ status: 'PASS', cells: 2 });
    expect(verdict.detail).toMatch(/1 stopped with exit 18/);
  });

  it('is FAIL with no cell, no refusal at all, a failed own check or a second write', () => {
    expect(fullDiskServerItem.evaluate([]).status).toBe('FAIL');
    expect(fullDiskServerItem.evaluate([fill('target.commit:after', 0)])).toMatchObject({
      status: 'FAIL',
      detail: /never met a write/,
    });
    expect(
      fullDiskServerItem.evaluate([fill('journal.create:after', 18, 'storage-full-refused')]).status,
    ).toBe('FAIL');
    expect(fullDiskServerItem.evaluate([fill('journal.create:after', 18, 'storage-full-lease')]).status).toBe(
      'FAIL',
    );
    expect(fullDiskServerItem.evaluate([fill('journal.create:after', 18, null, 2)]).status).toBe('FAIL');
  });

  it('is UNVERIFIED where no tmpfs could be mounted, and ignores the embedded journal storages', () => {
    expectUnverifiedIgnoringEmbeddedJournal(
      fullDiskServerItem,
      fill('journal.create:after', 18),
      'full-disk',
    );
  });
});

describe("issue 33's PostgreSQL journal-corruption line", () => {
  const corrupt: AttemptRecord = {
    ...done,
    exit_code: 19,
    error_code: 'DPONE_TARGET_COMMIT_JOURNAL_CORRUPT',
    role: 'retry',
  };
  const changed = (point: string, exit: 19 | 0, verdict: 'PASS' | 'FAIL' = 'PASS', mutations = 1) => {
    const base = cell(
      `postgres-journal-corruption/fields/${point}#1`,
      { kind: 'journal-corruption', shape: 'fields', point, hit: 1 },
      passing('journal-corruption-detected', verdict),
      mutations,
    );
    return exit === 19 ? { ...base, attempts: [corrupt, ...base.attempts] } : base;
  };

  it('is PASS when every changed row was met as corruption or not read, with one retry at 19 and one mutation each', () => {
    const verdict = journalCorruptionServerItem.evaluate([changed('a', 19), changed('b', 0)]);
    expect(verdict).toMatchObject({ status: 'PASS', cells: 2 });
    expect(verdict.detail).toMatch(/1 retries exited 19/);
  });

  it('is FAIL with no cell, no 19 at all, a failed detection (22, 29) or a second write; ignores the file shapes', () => {
    expect(journalCorruptionServerItem.evaluate([]).status).toBe('FAIL');
    expect(journalCorruptionServerItem.evaluate([changed('b', 0)]).detail).toMatch(/never seen at work/);
    expect(journalCorruptionServerItem.evaluate([changed('a', 19, 'FAIL')]).status).toBe('FAIL');
    expect(journalCorruptionServerItem.evaluate([changed('a', 19, 'PASS', 2)]).status).toBe('FAIL');
    const file = cell(`${EMBEDDED_ENGINE}-journal-corruption/rows/x#1`, {
      kind: 'journal-corruption',
      shape: 'rows',
    });
    expect(journalCorruptionServerItem.evaluate([file]).status).toBe('FAIL');
  });
});
