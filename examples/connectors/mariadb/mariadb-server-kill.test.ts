import { fileURLToPath } from 'node:url';
import { certifyRun, writeConnectorCopy } from 'dpone-cert/testing';
import { describe, expect, it } from 'vitest';
import { scratchFolders } from './fixtures/scratch-folders.ts';
import { skipReason } from './fixtures/mariadb-kit-factory.ts';

/**
 * server-kill.yaml on the MariaDB route: the plug-in declares `serverKills`, so a cell's target
 * moves onto a mariadbd of its own, which the harness kills (SIGKILL) while a worker is parked
 * just before its COMMIT and starts again; the next run must finish with one mutation. The harness
 * believes neither call: a plug-in whose kill leaves the server running is never PASS.
 */
const CONNECTOR = fileURLToPath(new URL('./mariadb-connector.ts', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../../scenarios/server-kill.yaml', import.meta.url));

async function serverKillCells(route: string, connector: string, dir: string) {
  const options = { provider: 'local', reporter: 'markdown' };
  return (await certifyRun({ route, connector, scenarios: [SCENARIO], dir, ...options })).evidence.cells;
}

/** A scratch folder for one test, removed after the file's tests (each run's evidence and modules). */
const scratch = scratchFolders('dpone-mariadb-kill-');

describe.skipIf(skipReason() !== undefined)('server kills on the MariaDB route', () => {
  it('the honest plug-in: its own mariadbd is killed before COMMIT, the attempt fails, the next run finishes once', async () => {
    const dir = scratch();
    const cells = await serverKillCells('sqlite-to-mariadb', CONNECTOR, dir);
    const cell = cells.find((c) => c.id === 'server-kill/target/commit')!;
    expect(cell.verdict).toBe('PASS');
    // The kill reached the worker: its attempt failed on the dead server, the settle run succeeded.
    expect(cell.attempts[0]!.exit_code).not.toBe(0);
    expect(cell.attempts.at(-1)!.exit_code).toBe(0);
  }, 240_000);

  it('a plug-in whose kill does not stop its server: the cell is not PASS, and says why', async () => {
    const dir = scratch();
    const module = writeConnectorCopy({
      connector: CONNECTOR,
      dir,
      name: 'unkillable',
      harness: `target: {
      ...base.harness.target,
      prepare: async (dir, table, options) => {
        const target = await base.harness.target.prepare(dir, table, options);
        // Declares a control whose kill stops nothing: the server keeps answering.
        return target.control ? { ...target, control: { kill: async () => undefined, start: async () => undefined } } : target;
      },
    },`,
    });
    const cells = await serverKillCells('sqlite-to-mariadb-unkillable', module, dir);
    expect(cells.length).toBeGreaterThan(0);
    for (const cell of cells) {
      expect(cell.verdict).not.toBe('PASS');
      expect(JSON.stringify(cell.checks)).toContain('the kill did not stop it');
    }
  }, 240_000);
});
