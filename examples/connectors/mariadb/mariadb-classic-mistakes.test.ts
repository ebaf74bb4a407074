import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { CellEvidence } from 'dpone-cert/testing';
import { certifyRun } from 'dpone-cert/testing';
import type { ClassicMistake } from './fixtures/mariadb-classic-mistakes.ts';
import { scratchFolders } from './fixtures/scratch-folders.ts';
import { skipReason } from './fixtures/mariadb-kit-factory.ts';

/**
 * The classic mistakes caught by certification cells, not only by the connector kit
 * (mariadb-connector.test.ts shows the kit catching each). Each broken copy of the example
 * (fixtures/mariadb-classic-mistakes.ts, as a plug-in of its own: fixtures/mariadb-broken-connector.ts)
 * is certified on the few existing cells that should catch it, chosen by where its mistake leaves
 * the target, and the gate must FAIL on that cell for what the target's own rows show; the honest
 * example passes the same cells.
 *
 * - fence on a second connection (autocommit): the guard is committed before the data, so a
 *   death between the fence and the data's COMMIT leaves the fence saying committed over no rows.
 * - rows in autocommit chunks: the rows are committed before the fence, so the same death leaves
 *   rows the fence denies, and the retry writes them again.
 *   Both: server-kill.yaml's `target/commit` (the cell's mariadbd SIGKILLed while the worker is
 *   parked at target.commit:before; crash.yaml's `d1/target.commit:before`, the worker killed
 *   there, catches both too, in 23 cells instead of 1).
 * - a guard that ignores the epoch: the marker's committed status keeps a second write out, so the
 *   data ends right; only pause.yaml's cell that parks the next holder just after it prepared the
 *   fence, resumes the zombie into its commit and reads the target there (zombie-fenced) sees it.
 * - data and fence as two transactions inside one commit(): no fault point and no statement point
 *   lies between the two COMMITs (the harness sees commit() as one statement), so no crash or
 *   statement cell can land there; lost-ack.yaml's cell loses the data COMMIT's reply, the fence's
 *   COMMIT is never sent, and the recovery writes the rows again.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'bin/dpone.js');
const CONNECTOR = fileURLToPath(new URL('./mariadb-connector.ts', import.meta.url));
const BROKEN = fileURLToPath(new URL('./fixtures/mariadb-broken-connector.ts', import.meta.url));

/** The existing scenarios, cut down to the cells a mistake must meet (no unsafe variant: the copy is under test). */
function scenarios(dir: string): Record<'serverKill' | 'zombie' | 'lostAck', string> {
  const subset = (file: string, keep: (fault: Record<string, unknown>) => boolean) => {
    const scenario = parse(readFileSync(join(ROOT, 'scenarios', file), 'utf8')) as {
      faults: Record<string, unknown>[];
    };
    const written = join(dir, file);
    writeFileSync(written, stringify({ ...scenario, faults: scenario.faults.filter(keep), variants: false }));
    return written;
  };
  return {
    serverKill: subset('server-kill.yaml', () => true),
    zombie: subset('pause.yaml', (fault) => fault.hold_second_at === 'fence.prepare:after'),
    lostAck: subset('lost-ack.yaml', () => true),
  };
}

interface GateLine {
  readonly id: string;
  readonly status: string;
  readonly detail: string;
}
interface Certified {
  readonly cells: readonly CellEvidence[];
  readonly runVerdict: GateLine;
}

const SERVER_KILL_CELL = 'server-kill/target/commit';
const ZOMBIE_CELL = 'pause/cas:PREPARED->COMMITTING:after#1>held@fence.prepare:after#1';
const LOST_ACK_CELL = 'lost-ack/commit';

/** `certify run` of the route on the scenarios, then `certify gate` of its evidence. */
async function certify(
  dir: string,
  route: string,
  connector: string,
  files: readonly string[],
): Promise<Certified> {
  const run = await certifyRun({
    route,
    connector,
    scenarios: files,
    dir,
    provider: 'local',
    reporter: 'markdown',
  });
  const evidence = join(run.out, 'evidence.json');
  const gate = await execa(
    process.execPath,
    [BIN, 'certify', 'gate', '--route', route, '--connector', connector, '--evidence', evidence].concat([
      '--json',
      '--out',
      join(dir, `gate-${route}`),
    ]),
    { cwd: dir, reject: false, env: { CI: 'true' } },
  );
  const { lines } = JSON.parse(gate.stdout) as { lines: GateLine[] };
  return { cells: run.evidence.cells, runVerdict: lines.find((line) => line.id === 'run-verdict')! };
}

const scratch = scratchFolders('dpone-mariadb-mistakes-');

/** A plug-in module in the scratch folder: the example with one mistake, on a route of its own. */
function brokenModule(dir: string, mistake: ClassicMistake): string {
  const module = join(dir, `${mistake}.mjs`);
  writeFileSync(
    module,
    `import { brokenConnector } from ${JSON.stringify(BROKEN)};\nexport default brokenConnector('${mistake}');\n`,
  );
  return module;
}

const failing = (cell: CellEvidence) => cell.checks.filter((check) => check.verdict !== 'PASS');
const check = (cell: CellEvidence, name: string) => cell.checks.find((c) => c.name === name)!;

describe.skipIf(skipReason() !== undefined)('the classic mistakes, caught by certification cells', () => {
  const runs = new Map<string, Promise<Certified>>();

  beforeAll(() => {
    const dir = scratch();
    const files = scenarios(dir);
    const jobs: [string, () => Promise<Certified>][] = [
      ['honest', () => certify(dir, 'sqlite-to-mariadb', CONNECTOR, Object.values(files))],
      ...(
        [
          ['two-transaction-commit', files.lostAck],
          ['second-connection-fence', files.serverKill],
          ['autocommit-chunks', files.serverKill],
          ['epoch-ignoring-fence', files.zombie],
        ] as const
      ).map(([mistake, file]): [string, () => Promise<Certified>] => [
        mistake,
        () => certify(dir, `sqlite-to-mariadb-${mistake}`, brokenModule(dir, mistake), [file]),
      ]),
    ];
    // Two certifications at a time: each waits mostly (a server's start, a lease, a lost reply).
    const lanes = [Promise.resolve(), Promise.resolve()];
    jobs.forEach(([name, job], index) => {
      const run = lanes[index % 2]!.then(job);
      lanes[index % 2] = run.then(
        () => undefined,
        () => undefined,
      );
      runs.set(name, run);
    });
  });

  /** The one cell a broken copy was certified on, once it is that cell and it FAILed the run. */
  async function caughtOn(mistake: string, cellId: string): Promise<CellEvidence> {
    const { cells, runVerdict } = await runs.get(mistake)!;
    expect(cells.map((c) => c.id)).toEqual([cellId]);
    expect(cells[0]!.verdict).toBe('FAIL');
    expect(runVerdict).toMatchObject({ status: 'FAIL', detail: 'run verdict FAIL; 0/1 route cells PASS' });
    return cells[0]!;
  }

  it('the honest example passes every cell the mistakes are certified on', async () => {
    const { cells, runVerdict } = await runs.get('honest')!;
    expect(cells.map((cell) => cell.id).sort()).toEqual([LOST_ACK_CELL, ZOMBIE_CELL, SERVER_KILL_CELL]);
    for (const cell of cells)
      expect({ id: cell.id, failing: failing(cell) }).toEqual({ id: cell.id, failing: [] });
    for (const cell of cells) expect(cell.verdict).toBe('PASS');
    expect(runVerdict).toMatchObject({ status: 'PASS', detail: 'run verdict PASS; 3/3 route cells PASS' });
  }, 240_000);

  it('fence on a second connection: the server killed before COMMIT leaves the fence committed over no rows', async () => {
    const cell = await caughtOn('second-connection-fence', SERVER_KILL_CELL);
    expect(cell.target?.mutations).toBe(0);
    expect(check(cell, 'mutations')).toMatchObject({
      verdict: 'FAIL',
      detail: expect.stringContaining('never landed'),
    });
    expect(check(cell, 'parity').detail).toContain('missing from the target');
  }, 240_000);

  // Two mistakes that leave rows the fence denies, each on the cell that catches it: the same proof.
  it.each([
    [
      'rows in autocommit chunks: the server killed before COMMIT leaves rows the fence denies, written again',
      'autocommit-chunks',
      SERVER_KILL_CELL,
    ],
    [
      'data and fence as two transactions in one commit(): the lost COMMIT reply leaves rows the fence denies, written again',
      'two-transaction-commit',
      LOST_ACK_CELL,
    ],
  ] as const)(
    '%s',
    async (_title, mistake, cellId) => {
      const cell = await caughtOn(mistake, cellId);
      expect(cell.target?.mutations).toBe(2);
      expect(check(cell, 'mutations').detail).toContain('the mutation landed 2 times');
      expect(check(cell, 'duplicates').verdict).toBe('FAIL');
    },
    240_000,
  );

  it('a guard that ignores the epoch: the data ends right, but the zombie committed under a superseded epoch', async () => {
    const cell = await caughtOn('epoch-ignoring-fence', ZOMBIE_CELL);
    expect(failing(cell).map((c) => c.name)).toEqual(['zombie-fenced']);
    expect(check(cell, 'zombie-fenced').detail).toContain(
      'the zombie committed the load after the next holder had prepared a newer epoch',
    );
    expect(cell.target?.mutations).toBe(1);
  }, 240_000);
});
