import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EMBEDDED_ENGINE, loadRoute } from '../routes/route-registry.ts';

const route = await loadRoute(EMBEDDED_ENGINE);
import { Worker, killAt } from './worker.ts';
import { embeddedCell, workerSpec } from '../routes/fixtures/embedded-cell.ts';

const dir = mkdtempSync(join(tmpdir(), 'dpone-worker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cell = (name: string) =>
  embeddedCell(route, dir, name, { rows: 5, strategy: 'append', leaseTtlMs: 400, seed: 1 });

describe('worker', () => {
  it('is SIGKILLed from outside where it parked, and its record says so', async () => {
    const { record, hit } = await killAt({
      ...workerSpec(await cell('kill'), 'first'),
      stop: { point: 'cas:PREPARED->COMMITTING:after', hit: 1 },
    });
    expect(hit).toBe(true);
    expect(record).toMatchObject({ role: 'first', exit_code: null, signal: 'SIGKILL' });
    expect(record.last_point).toBe('cas:PREPARED->COMMITTING:after');
    expect(record.pid).toBeGreaterThan(0);
  });

  it('a stop point never reached resolves parked() to null and the worker ends on its own', async () => {
    await using worker = Worker.start({
      ...workerSpec(await cell('never'), 'first'),
      stop: { point: 'no.such:point', hit: 1 },
    });
    expect(await worker.parked()).toBeNull();
    const record = await worker.result();
    expect(record).toMatchObject({ exit_code: 0, signal: null, error_code: null });
    expect(record.last_point).toBe('cas:TARGET_COMMITTED->COMPLETE:after');
  });

  it('parks at each of several stops in turn, and reports the status and mutation it claimed', async () => {
    await using worker = Worker.start({
      ...workerSpec(await cell('stops'), 'first'),
      stop: { point: 'journal.create:after', hit: 1 },
      stops: [{ point: 'cas:PREPARED->COMMITTING:after', hit: 1 }],
    });
    expect(await worker.parked(1)).toMatchObject({ point: 'journal.create:after', hit: 1 });
    worker.resume();
    expect(await worker.parked(2)).toMatchObject({ point: 'cas:PREPARED->COMMITTING:after', hit: 1 });
    worker.resume();
    expect(await worker.parked(3)).toBeNull();
    expect(await worker.result()).toMatchObject({ exit_code: 0, status: 'committed', mutated: true });
  });
});
