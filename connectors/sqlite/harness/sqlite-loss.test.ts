import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Worker, killAt, runToEnd } from '../../../harness/workers/worker.ts';
import type { CellFixture } from '../../../harness/routes/route.ts';
import { loadRoute } from '../../../harness/routes/route-registry.ts';
import { embeddedCell, workerSpec } from '../../../harness/routes/fixtures/embedded-cell.ts';

const route = await loadRoute('sqlite');

const dir = mkdtempSync(join(tmpdir(), 'dpone-sqlite-loss-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cell = (name: string) =>
  embeddedCell(route, dir, name, { rows: 5, strategy: 'append', leaseTtlMs: 150, seed: 1 });

async function journalState(fixture: CellFixture): Promise<string | null> {
  const journal = await fixture.openJournal();
  try {
    const [id] = await journal.list();
    return id === undefined ? null : ((await journal.get(id))?.state ?? null);
  } finally {
    await journal.close();
  }
}

describe('SQLite journal and fence loss operations', () => {
  it('wipe leaves a 0-byte journal, which the harness reads as empty without writing a byte', async () => {
    const made = await cell('wipe');
    const { cellDir, fixture } = made;
    await runToEnd(workerSpec(made, 'clean'));
    await fixture.journalOps!.wipe!();
    const journal = join(cellDir, 'journal.db');
    expect(statSync(journal).size).toBe(0);
    expect(existsSync(`${journal}-wal`)).toBe(false);
    expect(await journalState(fixture)).toBeNull();
    expect(statSync(journal).size).toBe(0);
    await fixture.journalOps!.delete!();
    expect(existsSync(journal) || existsSync(join(cellDir, 'state'))).toBe(false);
  });

  it('backs the journal up under a parked worker and restores that older copy after the kill', async () => {
    const made = await cell('rollback');
    const { fixture } = made;
    await using worker = Worker.start({
      ...workerSpec(made, 'first'),
      stop: { point: 'cas:PREPARING->PREPARED:after', hit: 1 },
      stops: [{ point: 'target.commit:after', hit: 1 }],
    });
    expect(await worker.parked(1)).not.toBeNull();
    const backup = await fixture.journalOps!.backup!();
    worker.resume();
    expect(await worker.parked(2)).not.toBeNull();
    worker.kill();
    await worker.result();
    expect(await journalState(fixture)).toBe('COMMITTING');
    const before = await fixture.journalOps!.digest!();
    expect(await journalState(fixture)).toBe('COMMITTING');
    expect(await fixture.journalOps!.digest!()).toBe(before);
    await fixture.journalOps!.restore!(backup);
    expect(await journalState(fixture)).toBe('PREPARED');
    expect(await fixture.journalOps!.digest!()).not.toBe(before);
  });

  it('renames and drops the fence, and reads every place it was with its own connection', async () => {
    const made = await cell('fence');
    const { fixture } = made;
    const { hit } = await killAt({
      ...workerSpec(made, 'first'),
      stop: { point: 'target.commit:after', hit: 1 },
    });
    expect(hit).toBe(true);
    const fence = fixture.fenceOps!;
    const journal = await fixture.openJournal();
    const operation = (await journal.list())[0]!;
    await journal.close();
    expect((await fence.read(operation)).locations).toEqual([
      { where: '_dpone_fence', table: true, status: 'committed', epoch: 1 },
      { where: '_dpone_fence_lost', table: false, status: null, epoch: null },
    ]);
    await fence.rename!();
    expect((await fence.read(operation)).locations.map((l) => [l.where, l.table, l.status])).toEqual([
      ['_dpone_fence', false, null],
      ['_dpone_fence_lost', true, 'committed'],
    ]);
    await fence.drop!();
    expect((await fence.read(operation)).locations[1]!.status).toBe('committed');
  });
});
