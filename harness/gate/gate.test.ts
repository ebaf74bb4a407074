import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Evidence } from '../evidence/evidence-types.ts';
import { run as gate } from '../cli/certify-gate.ts';
import { run as verify } from '../cli/certify-verify.ts';
import { capturedIo } from './fixtures/captured-io.ts';
import {
  acceptanceCells,
  airflowCell,
  airflowRun,
  checkedCell,
  lossCells,
  sealEvidence,
  unknownCell,
  unverifiedCell,
} from './fixtures/certified-evidence.ts';
import { FIXTURE_ROUTE, writeFixtureScenarios } from './fixtures/fixture-plan.ts';
import { EMBEDDED_ENGINE, routeAliases } from '../routes/route-registry.ts';
import { certificationStatement } from './certification-record.ts';
import type { GateResult } from './gate.ts';
import { builtInRouteCode } from '../../src/cli/route-code.ts';
import { runtimeDigest } from '../../src/cli/code-digest.ts';
import { suiteDigest } from '../../src/cli/shipped-suites.ts';
import { routeAcceptanceItems } from '../../src/cli/route-acceptance.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function workdir(evidence: Evidence | string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-gate-'));
  dirs.push(dir);
  await writeFixtureScenarios(dir);
  await writeFile(
    join(dir, 'evidence.json'),
    typeof evidence === 'string' ? evidence : JSON.stringify(evidence, null, 2),
  );
  return dir;
}

async function runGate(dir: string, ...extra: string[]) {
  const io = capturedIo(dir);
  const code = await gate(['--route', EMBEDDED_ENGINE, '--evidence', 'evidence.json', ...extra], io);
  const lines = Object.fromEntries(
    io
      .out()
      .split('\n')
      .map((line) => /^(PASS|FAIL|UNKNOWN|UNVERIFIED)\s+(\S+)/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[2], match[1]]),
  );
  return { code, lines, out: io.out(), certification: join(dir, 'certification.review.intoto.json') };
}

/** The fixture's cells with its race cells (not the unsafe-variant ones) UNVERIFIED: they could not run here. */
const racesUnverified = () =>
  acceptanceCells().map((cell) =>
    cell.fault.kind === 'race' && cell.variant === null
      ? unverifiedCell(cell.id, cell.scenario, cell.fault)
      : cell,
  );

describe('certify gate', () => {
  it('explains every acceptance item of the synthetic fixture, and refuses to certify it: not the shipped suite, no code digests', async () => {
    const dir = await workdir(sealEvidence(acceptanceCells()));
    const result = await runGate(dir);
    // Attack 3 of issue 27: evidence sealed from this repository's own fixture, next to the toy
    // scenario files, verifies; every acceptance item passes; and still nothing is certified.
    expect(result.code).toBe(1);
    expect(existsSync(result.certification)).toBe(false);
    expect(result.lines.suite).toBe('FAIL');
    expect(result.out).toMatch(
      new RegExp(
        `suite +\\d+ cells {2}planned from \\d+ scenario file\\(s\\), not the shipped full suite for ${FIXTURE_ROUTE} \\(\\d+ files\\): \\d+ missing`,
      ),
    );
    expect(result.lines['code-digests']).toBe('FAIL');
    expect(result.out).toMatch(/code-digests .*the evidence records no code digests/);
    // Every other item a record for the fixture's route must hold (the mandatory ones and its target
    // engine's: the registration's list, pinned in route-code.test.ts and the engine's folder) passes.
    const explained = routeAcceptanceItems(FIXTURE_ROUTE).filter(
      (item) => item !== 'suite' && item !== 'code-digests',
    );
    expect(explained).toHaveLength(20);
    for (const item of explained) expect(result.lines[item], item).toBe('PASS');
    expect(result.out).toMatch(
      /journal-loss-one-mutation +14 cells {2}14 cells PASS, max 1 mutation: journal-loss rollback 5, journal-loss wipe 5, fence-loss drop 4; each mode at every one of 5 transitions/,
    );
    expect(result.out).toMatch(
      /plan +\d+ cells {2}the \d+ cells are exactly the plan derived again from 15 scenario file/,
    );
    expect(result.out).toMatch(
      /power-loss-journal-durable +5 cells {2}5 power-loss cells PASS at 5 journal transition points/,
    );
    expect(result.out).toMatch(
      /full-disk-refused-then-one +10 cells {2}10 full-disk cells PASS on the journal and target: 10 stopped with exit 18/,
    );
    expect(result.out).toMatch(
      /read-only-refused-then-one +10 cells {2}10 read-only-disk cells PASS on the journal and target: 10 stopped with exit 31/,
    );
    expect(result.out).toMatch(
      /journal-corruption-detected +5 cells {2}5 journal-corruption cells PASS: 5 retries met the damage and exited 19/,
    );
    expect(result.out).toMatch(/unknown-never-success +8 cells {2}8 cells reached COMMIT_UNKNOWN in a run/);
    expect(result.out).toMatch(
      /shadow-report-exact +10 cells {2}7 shadow cells wrote what legacy writes; in 3 the target's second mutation was counted exactly.*; 1 Airflow DAG run in shadow mode retried and reported exactly/,
    );
    expect(result.out).toMatch(
      /clock-skew +20 cells {2}5 dying-holder and clock-jump cells \(offsets \+365d\) each within the journal's TTL bound, 5 skewed challengers and 10 skewed operator actions/,
    );
    expect(result.out).toMatch(
      /airflow-one-mutation\s+6 cells {2}6 airflow-live cells PASS on Airflow 3\.3\.2: 6 DAG runs, 12 task tries/,
    );
  });

  it('fails fixture evidence that claims this code’s digests but was not planned from the shipped suite', async () => {
    const good = sealEvidence(acceptanceCells());
    const claimed = sealEvidence(acceptanceCells(), {
      environment: {
        ...good.environment,
        code: {
          connectors: builtInRouteCode(EMBEDDED_ENGINE),
          runtime: runtimeDigest().digest,
          harness: 'x',
        },
        suite: { name: 'full', digest: suiteDigest('full').digest },
      },
    });
    const result = await runGate(await workdir(claimed));
    expect(result.lines['code-digests']).toBe('PASS');
    expect(result.lines.suite).toBe('FAIL');
    expect(result.code).toBe(1);
    const stale = sealEvidence(acceptanceCells(), {
      environment: {
        ...good.environment,
        code: {
          connectors: builtInRouteCode(EMBEDDED_ENGINE)!.map((entry) => ({
            ...entry,
            digest: `sha256:${'9'.repeat(64)}`,
          })),
          runtime: runtimeDigest().digest,
          harness: 'x',
        },
      },
    });
    const other = await runGate(await workdir(stale));
    expect(other.lines['code-digests']).toBe('FAIL');
    expect(other.out).toMatch(
      new RegExp(
        `target connector ${EMBEDDED_ENGINE}: the evidence ran 999999999999…, this runtime has [0-9a-f]{12}…`,
      ),
    );
  });

  it('fails evidence with a second mutation after a kill, and writes nothing', async () => {
    const cells = acceptanceCells();
    const index = cells.findIndex(
      (cell) => cell.id.startsWith('crash/') && cell.id.includes('COMMITTING->TARGET_COMMITTED'),
    );
    const point = cells[index]!.fault.point!;
    cells[index] = checkedCell(cells[index]!.id, 'crash', cells[index]!.fault, cells[index]!.attempts, {
      mutations: 2,
    });
    expect(cells[index]!.verdict).toBe('FAIL');
    const result = await runGate(await workdir(sealEvidence(cells)));
    expect(result.code).toBe(1);
    expect(result.lines['evidence-integrity']).toBe('PASS');
    expect(result.lines['kill-every-transition']).toBe('FAIL');
    expect(result.out).toContain(point);
    expect(existsSync(result.certification)).toBe(false);
  });

  it('does not count UNVERIFIED as PASS', async () => {
    const result = await runGate(await workdir(sealEvidence(racesUnverified())));
    expect(result.code).toBe(1);
    expect(result.lines['two-workers-one-mutation']).toBe('UNVERIFIED');
    expect(result.lines['unavailable-is-unverified']).toBe('PASS');
    expect(existsSync(result.certification)).toBe(false);
  });

  it('says which cells could not run and why, so an external run shows what it cannot certify', async () => {
    const passing = await runGate(await workdir(sealEvidence(acceptanceCells())));
    expect(passing.lines['run-scope']).toBe('PASS');
    const result = await runGate(await workdir(sealEvidence(racesUnverified())));
    expect(result.code).toBe(1);
    expect(result.lines['run-scope']).toBe('UNVERIFIED');
    expect(result.out).toMatch(
      /run-scope\s+\d+ cells {2}2 of \d+ route cells could not run here.*2× race: provider unavailable/,
    );
  });

  it('decides the Airflow line by the airflow-live cells: none, unavailable, wrong tries, two operations', async () => {
    const others = acceptanceCells().filter((cell) => cell.fault.kind !== 'airflow-live');
    const none = await runGate(await workdir(sealEvidence(others)));
    expect(none.code).toBe(1);
    // No cell decided it: FAIL, not UNVERIFIED (and the plan misses them).
    expect(none.lines['airflow-one-mutation']).toBe('FAIL');
    expect(none.lines.plan).toBe('FAIL');
    expect(none.out).toContain('no airflow-live cell in the evidence: nothing decided this item');

    const unavailable = acceptanceCells().map((cell) =>
      cell.fault.kind === 'airflow-live' ? unverifiedCell(cell.id, cell.scenario, cell.fault) : cell,
    );
    const missing = await runGate(await workdir(sealEvidence(unavailable)));
    expect(missing.lines['airflow-one-mutation']).toBe('UNVERIFIED');
    expect(missing.out).toContain('environment UNVERIFIED: provider unavailable');

    // Airflow retried once more than the harness lost tries (a try failed on its own).
    const extraTry = airflowCell('pod-lost/target.commit:after#1', [airflowRun(['pod-killed', 'none'], 2)]);
    expect(extraTry.verdict).toBe('FAIL');
    const twoOps = airflowCell('worker-lost', [airflowRun(['worker-killed'])], { operations: 2 });
    expect(twoOps.checks.find((check) => check.name === 'one-operation')?.verdict).toBe('FAIL');
    for (const bad of [extraTry, twoOps]) {
      const cells = acceptanceCells().map((cell) => (cell.id === bad.id ? bad : cell));
      const result = await runGate(await workdir(sealEvidence(cells)));
      expect(result.lines['airflow-one-mutation']).toBe('FAIL');
    }
    const without = await runGate(
      await workdir(sealEvidence(acceptanceCells().filter((cell) => !cell.id.includes('xcom-lost')))),
    );
    expect(without.lines['airflow-one-mutation']).toBe('FAIL');
    expect(without.out).toContain('no airflow-live cell for xcom-lost');
  });

  it('verify recomputes the Airflow checks from the stored Airflow record', async () => {
    const evidence = sealEvidence(acceptanceCells());
    const tampered = {
      ...evidence,
      cells: evidence.cells.map((cell) =>
        cell.airflow
          ? {
              ...cell,
              airflow: {
                ...cell.airflow,
                runs: cell.airflow.runs.map((run) => ({ ...run, task_state: 'failed' })),
              },
            }
          : cell,
      ),
    };
    const dir = await workdir(JSON.stringify(tampered));
    const io = capturedIo(dir);
    expect(await verify(['evidence.json'], io)).toBe(1);
    expect(io.out()).toMatch(/check airflow-runs: stored PASS, recomputed FAIL/);
  });

  it('fails tampered evidence: one cell verdict edited in the JSON', async () => {
    const evidence = sealEvidence(
      acceptanceCells().map((cell, index) =>
        index === 0 ? checkedCell(cell.id, cell.scenario, cell.fault, cell.attempts, { mutations: 2 }) : cell,
      ),
    );
    const text = JSON.stringify(evidence, null, 2).replace('"verdict": "FAIL"', '"verdict": "PASS"');
    const dir = await workdir(text);
    const result = await runGate(dir);
    expect(result.code).toBe(1);
    expect(result.lines['evidence-integrity']).toBe('FAIL');
    const io = capturedIo(dir);
    expect(await verify(['evidence.json'], io)).toBe(1);
    expect(io.out()).toMatch(/digest: stored sha256:[0-9a-f]+, content hashes to/);
    expect(io.out()).toMatch(/verdict: stored PASS, recomputed FAIL/);
  });

  it('fails when an unsafe variant survived, for a shard, and for another route', async () => {
    const cells = acceptanceCells().map((cell) =>
      cell.variant
        ? checkedCell(cell.id, cell.scenario, cell.fault, cell.attempts, { variant: cell.variant })
        : cell,
    );
    const survived = await runGate(await workdir(sealEvidence(cells)));
    expect(survived.code).toBe(1);
    expect(survived.lines['no-variant-survived']).toBe('FAIL');
    const shard = await runGate(
      await workdir(sealEvidence(acceptanceCells(), { shard: { index: 1, count: 3 } })),
    );
    expect(shard.lines['route-and-scope']).toBe('FAIL');
    const io = capturedIo(dirs.at(-1)!);
    const otherRoute = routeAliases().find((alias) => alias !== EMBEDDED_ENGINE)!;
    expect(await gate(['--route', otherRoute, '--evidence', 'evidence.json'], io)).toBe(1);
  });
});

describe('certify gate: a lost or rolled-back journal never gives a second mutation', () => {
  const isLoss = (kind: string) => kind === 'journal-loss' || kind === 'fence-loss';

  it('is FAIL, not UNVERIFIED, when no journal-loss cell decided it', async () => {
    const cells = acceptanceCells().filter((cell) => !isLoss(cell.fault.kind));
    const result = await runGate(await workdir(sealEvidence(cells)));
    expect(result.code).toBe(1);
    expect(result.lines['journal-loss-one-mutation']).toBe('FAIL');
    expect(result.out).toContain('no journal-loss cell in the evidence');
  });

  it('fails on a second mutation after a lost journal, naming the cell', async () => {
    const cells = acceptanceCells().map((cell) =>
      cell.id === 'journal-loss/rollback/cas:COMMITTING->TARGET_COMMITTED:after#1'
        ? lossCells(2).find((doubled) => doubled.id === cell.id)!
        : cell,
    );
    const result = await runGate(await workdir(sealEvidence(cells)));
    expect(result.lines['journal-loss-one-mutation']).toBe('FAIL');
    expect(result.out).toContain('show a second mutation, e.g. journal-loss/rollback/cas:COMMITTING');
  });

  it('fails when a loss mode the route supports has no cell', async () => {
    const cells = acceptanceCells().filter((cell) => cell.fault.mode !== 'rollback');
    const result = await runGate(await workdir(sealEvidence(cells)));
    expect(result.lines['journal-loss-one-mutation']).toBe('FAIL');
    expect(result.out).toContain('no cell for loss mode(s) the route supports: journal-loss rollback');
  });

  it("requires the clean trace's transitions, not one only a recovery run takes", async () => {
    const point = 'cas:COMMITTING->PREPARED:after';
    const recoveryOnly = checkedCell(
      `crash/d2/target.commit:before#1>${point}#1`,
      'crash',
      { kind: 'crash', point: 'target.commit:before', hit: 1, attempt: 2, recovery_point: `${point}#1` },
      acceptanceCells()[0]!.attempts,
    );
    const result = await runGate(await workdir(sealEvidence([...acceptanceCells(), recoveryOnly])));
    expect(result.lines['journal-loss-one-mutation']).toBe('PASS');
  });

  it('is UNVERIFIED when a mode did not strike every transition', async () => {
    const cells = acceptanceCells().filter(
      (cell) => !(cell.fault.mode === 'wipe' && cell.fault.point === 'cas:PREPARED->COMMITTING:after'),
    );
    const result = await runGate(await workdir(sealEvidence(cells)));
    expect(result.lines['journal-loss-one-mutation']).toBe('UNVERIFIED');
    expect(result.out).toContain('not struck: journal-loss wipe at cas:PREPARED->COMMITTING');
  });
});

describe('certify verify', () => {
  it('verifies untouched evidence (exit 0) and names a tampered snapshot (exit 1)', async () => {
    const evidence = sealEvidence(acceptanceCells());
    const dir = await workdir(evidence);
    const io = capturedIo(dir);
    expect(await verify(['evidence.json'], io)).toBe(0);
    expect(io.out()).toMatch(/^verified: evidence.json/);
    const tampered = {
      ...evidence,
      cells: evidence.cells.map((cell, i) =>
        i === 1 ? { ...cell, target: { ...cell.target!, mutations: 2 } } : cell,
      ),
    };
    const bad = await workdir(JSON.stringify(tampered));
    const badIo = capturedIo(bad);
    expect(await verify(['evidence.json'], badIo)).toBe(1);
    expect(badIo.out()).toContain('NOT verified');
    expect(badIo.out()).toMatch(/check mutations: stored PASS, recomputed FAIL/);
  });
});

describe('certify gate: no line passes on zero cells, no run passes on missing cells', () => {
  it('prints how many cells decided each line', async () => {
    const result = await runGate(await workdir(sealEvidence(acceptanceCells())));
    const lines = result.out.split('\n').filter((line) => /^(PASS|FAIL|UNKNOWN|UNVERIFIED) /.test(line));
    expect(lines.length).toBeGreaterThanOrEqual(14);
    for (const line of lines) expect(line).toMatch(/^\S+\s+\S+\s+[1-9]\d* cells? {2}/);
  });

  it('names the cells that decided each acceptance item: the first on the terminal, all in the record', async () => {
    const cells = acceptanceCells();
    const evidence = sealEvidence(cells);
    const result = await runGate(await workdir(evidence));
    const json = capturedIo(dirs.at(-1)!);
    await gate(['--route', EMBEDDED_ENGINE, '--evidence', 'evidence.json', '--json'], json);
    const gated = JSON.parse(json.out()) as GateResult;
    const record = certificationStatement(evidence, { ...gated, passed: true }, new Date(), true).predicate;
    const byItem = Object.fromEntries(record.acceptance.map((entry) => [entry.item, entry]));
    const ids = (kinds: readonly string[]) =>
      cells
        .filter((cell) => cell.variant === null && kinds.includes(cell.fault.kind))
        .map((cell) => cell.id)
        .sort();
    expect(byItem['kill-every-transition']!.decided_by).toEqual(ids(['crash']));
    expect(byItem['two-workers-one-mutation']!.decided_by).toEqual(ids(['race', 'pause']));
    expect(byItem['intent-conflict-before-io']!.decided_by).toEqual(ids(['intent-conflict']));
    expect(byItem['journal-loss-one-mutation']!.decided_by).toEqual(ids(['journal-loss', 'fence-loss']));
    const inShadow = (id: string) => cells.find((cell) => cell.id === id)?.airflow?.mode === 'shadow';
    expect(byItem['airflow-one-mutation']!.decided_by).toEqual(
      ids(['airflow-live']).filter((id) => !inShadow(id)),
    );
    // The Airflow example in shadow mode decides the shadow item, not one mutation.
    expect(byItem['shadow-report-exact']!.decided_by).toEqual(
      [...ids(['shadow']), ...ids(['airflow-live']).filter(inShadow)].sort(),
    );
    for (const entry of record.acceptance.filter((line) => line.decided_by.length > 0))
      expect(entry.cells).toBe(entry.decided_by.length);
    const crash = ids(['crash']);
    expect(result.out).toContain(`decided by ${crash.slice(0, 3).join(', ')} (+${crash.length - 3} more)`);
  });

  it('fails evidence missing a planned cell, or holding one the plan lacks, even when it verifies', async () => {
    const cells = acceptanceCells();
    const missing = await runGate(await workdir(sealEvidence(cells.filter((cell) => cell.id !== 'race/8'))));
    expect(missing.code).toBe(1);
    expect(missing.lines.plan).toBe('FAIL');
    expect(missing.lines['evidence-integrity']).toBe('PASS');
    expect(missing.out).toContain('1 planned cell(s) missing: race/8');
    const extra = checkedCell('race/3', 'race', { kind: 'race', workers: 3 }, cells[0]!.attempts);
    const added = await runGate(await workdir(sealEvidence([...cells, extra])));
    expect(added.lines.plan).toBe('FAIL');
    expect(added.out).toContain('1 cell(s) not in the plan: race/3');
  });

  it('fails evidence whose scenario files are not here, or differ from what the run planned from', async () => {
    const dir = await workdir(sealEvidence(acceptanceCells()));
    await writeFile(
      join(dir, 'scenarios/race.yaml'),
      'name: race\nfaults:\n  - kind: race\n    workers: 2\n',
    );
    const changed = await runGate(dir);
    expect(changed.lines.plan).toBe('FAIL');
    expect(changed.out).toContain('scenarios/race.yaml is not the one the run planned from');
    await rm(join(dir, 'scenarios'), { recursive: true });
    const gone = await runGate(dir);
    expect(gone.lines.plan).toBe('FAIL');
    expect(gone.out).toContain('scenario file scenarios/crash.yaml cannot be read here');
    const { plan: _plan, ...unplanned } = sealEvidence(acceptanceCells());
    const none = await runGate(await workdir(sealEvidence(unplanned.cells, { plan: undefined })));
    expect(none.lines.plan).toBe('FAIL');
    expect(none.out).toContain('the evidence records no plan');
  });

  it('decides the unknown item only by runs that reached COMMIT_UNKNOWN themselves, never staged ones', async () => {
    const real = acceptanceCells();
    const staged = real.map((cell) =>
      cell.scenario === 'unknown' && cell.journal
        ? {
            ...cell,
            journal: {
              ...cell.journal,
              history: cell.journal.history.map((record) =>
                record.to_state === 'COMMIT_UNKNOWN' ? { ...record, staged: true } : record,
              ),
            },
          }
        : cell,
    );
    const result = await runGate(await workdir(sealEvidence(staged)));
    expect(result.lines['unknown-never-success']).toBe('FAIL');
    expect(result.out).toMatch(/unknown-never-success +0 cells {2}no cell reached a real unknown outcome/);
    const doubled = real.map((cell) =>
      cell.scenario === 'unknown' && cell.fault.point === 'cas:COMMITTING->TARGET_COMMITTED:after'
        ? unknownCell(cell.id, cell.scenario, cell.fault, 2)
        : cell,
    );
    const replayed = await runGate(await workdir(sealEvidence(doubled)));
    expect(replayed.lines['unknown-never-success']).toBe('FAIL');
    expect(replayed.out).toContain('unknown-outcome cell(s) show a second mutation');
  });

  it('decides the intent-conflict item from the sealed storage, not from the worker: unsealed is UNVERIFIED', async () => {
    const cells = acceptanceCells().map((cell) =>
      cell.fault.kind === 'intent-conflict'
        ? { ...cell, checks: cell.checks.filter((check) => check.name !== 'storage-untouched') }
        : cell,
    );
    const result = await runGate(await workdir(sealEvidence(cells)));
    expect(result.lines['intent-conflict-before-io']).toBe('UNVERIFIED');
    expect(result.out).toContain("only the worker's own word says no I/O happened");
  });
});

describe('the clock-skew item', () => {
  it('is FAIL when an operator cell states what the target contradicts, and UNVERIFIED without libfaketime', async () => {
    const { clockSkewItem } = await import('./clock-skew-item.ts');
    // The gate decides items on the real cells; variant cells are the sensitivity line's.
    const cells = acceptanceCells().filter((cell) => cell.variant === null);
    expect(clockSkewItem.evaluate(cells).status).toBe('PASS');
    const lying = cells.map((cell) =>
      cell.fault.kind === 'clock-skew' && cell.fault.phase === 'operator' && cell.variant === null
        ? {
            ...cell,
            verdict: 'FAIL' as const,
            checks: cell.checks.map((check) =>
              check.name === 'audit-truth' ? { ...check, verdict: 'FAIL' as const } : check,
            ),
          }
        : cell,
    );
    expect(clockSkewItem.evaluate(lying)).toMatchObject({ status: 'FAIL' });
    const unverified = cells.map((cell) =>
      cell.fault.kind === 'clock-skew' ? { ...cell, verdict: 'UNVERIFIED' as const } : cell,
    );
    expect(clockSkewItem.evaluate(unverified).status).toBe('UNVERIFIED');
    const none = cells.filter((cell) => cell.fault.kind !== 'clock-skew');
    expect(clockSkewItem.evaluate(none)).toMatchObject({ status: 'FAIL', cells: 0 });
  });
});
