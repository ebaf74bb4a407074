import { existsSync, linkSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lossyFsBinaryPath, lossyFsUnavailable } from '../../../../harness/env/lossy-fs-binary.ts';
import { startLossyFs } from '../../../../harness/env/lossy-fs.ts';
import { makeFolderDurably } from '../../../../src/adapters/state/durable-folder.ts';
import { loadRoute } from '../../../../harness/routes/route-registry.ts';
import { killAt, runToEnd } from '../../../../harness/workers/worker.ts';
import type { EmbeddedCell } from '../../../../harness/routes/fixtures/embedded-cell.ts';
import { embeddedCell, workerSpec } from '../../../../harness/routes/fixtures/embedded-cell.ts';

/**
 * The product's SQLite journal (WAL, synchronous=FULL) on the power-loss filesystem, through the
 * real `dpone run` of the SQLite route: the first attempt is SIGKILLed right after a journal
 * transition returned, the power is cut, then the retry runs. Every transition that returned must
 * survive the cut (a run must never have been told of a state that is then lost), and the target's
 * own audit must show exactly one mutation. Breaking the journal's synchronous=FULL to OFF fails it.
 */
const missing = process.env.CI === 'true' ? null : lossyFsUnavailable(lossyFsBinaryPath());
const LEASE_TTL_MS = 300;
const route = await loadRoute('sqlite');
const dir = mkdtempSync(join(tmpdir(), 'dpone-power-cut-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cell(name: string): Promise<EmbeddedCell> {
  const made = await embeddedCell(route, dir, name, {
    rows: 5,
    strategy: 'append',
    leaseTtlMs: LEASE_TTL_MS,
    seed: 1,
  });
  await made.fixture.inspector.installAudit();
  return made;
}

/** The journal's state and version as a reader finds them after the cut (null: no journal). */
function journalState(path: string): { state: string; version: number } | null {
  const db = new DatabaseSync(path);
  try {
    const rows = db.prepare('SELECT state, version FROM dpone_commit_journal').all() as {
      state: string;
      version: number;
    }[];
    return rows[0] ?? null;
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** The journal transitions a clean run passes, each right after its compare-and-set returned. */
async function transitionsOfCleanRun(): Promise<string[]> {
  const clean = await cell('clean');
  const { fixture } = clean;
  const traceFile = join(clean.cellDir, 'trace-clean.txt');
  const record = await runToEnd({ ...workerSpec(clean, 'first'), traceFile });
  expect(record.exit_code).toBe(0);
  await fixture[Symbol.asyncDispose]();
  const points = readFileSync(traceFile, 'utf8')
    .split('\n')
    .map((line) => line.split('\t')[0]!.split(' ')[0]!)
    .filter((point) => /^cas:.*:after$/.test(point));
  return [...new Set(points)];
}

describe.skipIf(missing !== null)(
  `the SQLite journal on the power-loss filesystem${missing === null ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('keeps every journal transition that returned across a power cut, and the retry mutates once', async () => {
      const transitions = await transitionsOfCleanRun();
      expect(transitions.length).toBeGreaterThanOrEqual(4);
      for (const point of transitions) {
        const made = await cell(point.replace(/[^a-zA-Z0-9]+/g, '-'));
        const { fixture } = made;
        await using fs = await mountOrThrow(join(made.cellDir, 'durable'));
        const journalPath = join(fs.mountPoint, 'journal.db');
        const journalUrl = `sqlite://${journalPath}`;
        const first = await killAt({ ...workerSpec(made, 'first'), journalUrl, stop: { point, hit: 1 } });
        expect(first.hit, point).toBe(true);
        await fs.cutPower();

        const returned = /^cas:[A-Z_]+->([A-Z_]+):after$/.exec(point)![1];
        expect(journalState(journalPath)?.state, `journal after a cut at ${point}`).toBe(returned);

        await new Promise((resolve) => setTimeout(resolve, LEASE_TTL_MS + 100));
        const retry = await runToEnd({ ...workerSpec(made, 'retry'), journalUrl });
        expect(retry.exit_code, `retry after a cut at ${point}`).toBe(0);
        expect(journalState(journalPath)?.state).toBe('COMPLETE');
        const { mutations } = await fixture.inspector.snapshot({ firstDifference: false });
        expect(mutations, `mutations after a cut at ${point}`).toBe(1);
        await fixture[Symbol.asyncDispose]();
      }
    });
  },
);

async function mountOrThrow(backing: string) {
  const started = await startLossyFs({ backing });
  if (!started.available) throw new Error(started.reason);
  return started.fs;
}

/**
 * Issue 33's "journal file created without syncing its directory" variant, measured rather than
 * offered: the journal is created under a temporary name and linked into place, then its folder is
 * fsynced (createJournalFile). Without that fsync the link alone is lost at a cut; but the journal's
 * open switches the file to WAL, and SQLite syncs the folder itself when it creates a journal of
 * its own there, before any transition can commit. So on this stack no committed journal state
 * can be lost for want of the journal file's folder fsync, and no power-loss cell could catch that
 * variant. What SQLite does not sync is the folder ABOVE: a state folder the run creates (below,
 * and the `state-folder-unsynced` variant). This test holds the claim to what SQLite does (a SQLite
 * built without its directory syncs would fail the second case).
 */
describe.skipIf(missing !== null)(
  `a journal file linked without syncing its folder${missing === null ? '' : ` (skipped: ${missing})`}`,
  () => {
    /** The journal's file made as createJournalFile makes it, minus the folder's fsync. */
    function linkWithoutFolderSync(path: string): void {
      const temporary = `${path}.creating`;
      const db = new DatabaseSync(temporary);
      db.exec('PRAGMA journal_mode = DELETE');
      db.exec('PRAGMA synchronous = FULL');
      db.exec(`BEGIN IMMEDIATE; CREATE TABLE made (n INTEGER); COMMIT`);
      db.close();
      linkSync(temporary, path);
      rmSync(temporary);
    }

    it('is lost at a cut when nothing syncs its folder', async () => {
      await using fs = await mountOrThrow(mkdtempSync(join(dir, 'unsynced-link-')));
      const path = join(fs.mountPoint, 'journal.db');
      linkWithoutFolderSync(path);
      await fs.cutPower();
      expect(existsSync(path)).toBe(false);
    });

    it('survives a cut once it is opened in WAL mode, as the journal opens it, before any commit', async () => {
      await using fs = await mountOrThrow(mkdtempSync(join(dir, 'wal-synced-link-')));
      const path = join(fs.mountPoint, 'journal.db');
      linkWithoutFolderSync(path);
      const db = new DatabaseSync(path);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = FULL');
      await fs.cutPower();
      db.close();
      expect(existsSync(path)).toBe(true);
    });
  },
);

/**
 * The state folder `dpone run` creates (execution.state_dir, the default journal's folder): SQLite
 * syncs the journal's own folder, never the folders above it, so a folder created as `mkdir -p`
 * does is lost at a cut with the journal inside; created by makeFolderDurably (each new folder's
 * parent fsynced), it survives with every committed transaction.
 */
describe.skipIf(missing !== null)(
  `a state folder created for the journal${missing === null ? '' : ` (skipped: ${missing})`}`,
  () => {
    async function journalInNewFolder(unsynced: boolean): Promise<boolean> {
      await using fs = await mountOrThrow(
        mkdtempSync(join(dir, unsynced ? 'unsynced-folder-' : 'synced-folder-')),
      );
      const folder = join(fs.mountPoint, 'pipelines', 'dpone-state');
      expect(await makeFolderDurably(folder, { unsynced })).toEqual([
        join(fs.mountPoint, 'pipelines'),
        folder,
      ]);
      const path = join(folder, 'journal.db');
      const db = new DatabaseSync(path);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = FULL');
      db.exec('CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1)');
      await fs.cutPower();
      db.close();
      return existsSync(path) && readRows(path) === 1;
    }
    function readRows(path: string): number {
      const db = new DatabaseSync(path, { readOnly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
      } finally {
        db.close();
      }
    }

    it('keeps the folders and the committed journal across a cut when each new folder is synced into its parent', async () => {
      expect(await journalInNewFolder(false)).toBe(true);
    });

    it('loses the folders, and the journal with them, when they are created without syncing their parents', async () => {
      expect(await journalInNewFolder(true)).toBe(false);
    });

    it('creates nothing and syncs nothing when the folder exists', async () => {
      const existing = mkdtempSync(join(dir, 'existing-'));
      expect(await makeFolderDurably(existing)).toEqual([]);
    });
  },
);
