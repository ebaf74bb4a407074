import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CellEvidence } from 'dpone-cert/testing';
import { certifyRun, writeConnectorCopy } from 'dpone-cert/testing';
import { describe, expect, it } from 'vitest';
import { scratchFolders } from './fixtures/scratch-folders.ts';
import { skipReason } from './fixtures/mariadb-kit-factory.ts';

/**
 * The intent-conflict cell seals the MariaDB target through its declared `server` (host:port): the
 * sealed workload's URL is re-pointed at a listener the harness watches. The seal is believed only
 * once a probe that reads the fence through the connector was seen by that listener and could not
 * read the fence as committed. The honest plug-in passes, and io-before-intent is caught; a broken
 * copy whose connector ignores the sealed URL and keeps talking to the real server (its address
 * from an environment variable) is UNVERIFIED, never PASS; so is a copy declaring a dummy
 * `stateFiles` entry, whose recorded kills are never restored either (they hold none of the target).
 */
const CONNECTOR = fileURLToPath(new URL('./mariadb-connector.ts', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../../scenarios/intent-conflict.yaml', import.meta.url));

async function intentConflictCells(
  route: string,
  connector: string,
  dir: string,
  variants: boolean,
  more: readonly string[] = [],
) {
  const scenario = join(dir, 'intent-conflict.yaml');
  writeFileSync(scenario, `${readFileSync(SCENARIO, 'utf8')}${variants ? '' : 'variants: false\n'}`);
  const run = await certifyRun({
    route,
    connector,
    scenarios: [scenario, ...more],
    dir,
    reporter: 'markdown',
  });
  return run.evidence.cells;
}

const check = (cell: CellEvidence, name: string) => cell.checks.find((c) => c.name === name)!;

/** A scratch folder for one test, removed after the file's tests (each run's evidence and modules). */
const scratch = scratchFolders('dpone-mariadb-seal-');

describe.skipIf(skipReason() !== undefined)('the MariaDB target sealed through its declared server', () => {
  it('the honest plug-in: the probe is seen by the listener, the cell PASSes, and io-before-intent is caught', async () => {
    const dir = scratch();
    const cells = await intentConflictCells('sqlite-to-mariadb', CONNECTOR, dir, true);
    const base = cells.find((cell) => !cell.variant)!;
    expect(base.verdict).toBe('PASS');
    const storage = check(base, 'storage-untouched');
    expect(storage.verdict).toBe('PASS');
    expect(storage.detail).toContain(
      "the target server's host:port re-pointed at a listener the harness watches",
    );
    expect(storage.detail).toContain('the seal saw a probe that reads the fence (1 connection(s)');
    for (const variant of ['io-before-intent', 'quiet-io-before-intent']) {
      const caught = cells.find((cell) => cell.variant === variant)!;
      expect(caught.verdict).toBe('FAIL');
      expect(check(caught, 'storage-untouched').verdict).toBe('FAIL');
    }
    // The plug-in cells carry zoned instants: timezone-shifted is offered here and row parity catches it.
    const shifted = cells.find((cell) => cell.variant === 'timezone-shifted')!;
    expect(shifted.verdict).toBe('FAIL');
    expect(check(shifted, 'parity').verdict).toBe('FAIL');
  }, 180_000);

  it('a dummy stateFiles entry (target.conn, never written): the seal is UNVERIFIED naming it, and no cell restores a kill from it', async () => {
    const dir = scratch();
    const module = writeConnectorCopy({
      connector: CONNECTOR,
      dir,
      name: 'dummy',
      harness: `target: { ...base.harness.target, stateFiles: ['target.conn'] },`,
    });
    // The journal-loss cells of one mode: with a restorable state they start from the recorded
    // kill's folder instead of killing a first attempt.
    const loss = join(dir, 'journal-loss.yaml');
    writeFileSync(
      loss,
      'name: journal-loss\nworkload: { rows: 20, strategy: append }\nfaults:\n  - kind: journal-loss\n    modes: [delete]\nvariants: false\n',
    );
    const cells = await intentConflictCells('sqlite-to-mariadb-dummy', module, dir, false, [loss]);
    const sealed = cells.find((cell) => cell.id.startsWith('intent-conflict/'))!;
    expect(sealed.verdict).toBe('UNVERIFIED');
    expect(check(sealed, 'storage-untouched').detail).toContain(
      'the target declares target.conn as its state, which the honest attempt never opened, created or wrote',
    );
    // The recorded kills' folders hold the journal but nothing of the target (it is on the server):
    // each loss cell kills a first attempt again, so after the commit the fence refuses the rerun.
    const losses = cells.filter((cell) => cell.id.startsWith('journal-loss/'));
    expect(losses.length).toBeGreaterThan(5);
    for (const cell of losses) expect(cell.attempts[0]!.role).toBe('first');
    const afterCommit = losses.find((cell) => cell.id === 'journal-loss/delete/target.commit:after#1')!;
    expect(afterCommit.verdict).toBe('PASS');
    expect(afterCommit.attempts.at(-1)).toMatchObject({ role: 'settle', exit_code: 0, mutated: false });
  }, 180_000);

  it('a connector that keeps talking to the real server under the seal: UNVERIFIED, never PASS', async () => {
    const dir = scratch();
    // Its harness hands every worker the real server's address, and its connector uses that
    // address whatever host:port the workload URL names: the declared server seals nothing.
    const module = writeConnectorCopy({
      connector: CONNECTOR,
      dir,
      name: 'leaky',
      preamble: `const REAL = 'DPONE_TEST_REAL_MARIADB';
const aimed = (endpoint) => process.env[REAL] ? { ...endpoint, url: endpoint.url.replace(/@[^/]+\\//, '@' + process.env[REAL] + '/') } : endpoint;`,
      plugin: `target: {
    ...base.target,
    open: (endpoint, context) => base.target.open(aimed(endpoint), context),
    openUnsafe: (variant, endpoint, context) => base.target.openUnsafe(variant, aimed(endpoint), context),
  },`,
      harness: `target: {
      ...base.harness.target,
      prepare: async (dir, table) => {
        const target = await base.harness.target.prepare(dir, table);
        return { ...target, env: { ...target.env, [REAL]: target.server.host + ':' + target.server.port } };
      },
    },`,
    });
    const [cell] = await intentConflictCells('sqlite-to-mariadb-leaky', module, dir, false);
    expect(cell!.verdict).not.toBe('PASS');
    const storage = check(cell!, 'storage-untouched');
    expect(storage.verdict).toBe('UNVERIFIED');
    expect(storage.detail).toContain("a probe under the seal still read the operation's fence as committed");
  }, 180_000);
});
