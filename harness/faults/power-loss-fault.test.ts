import { describe, expect, it } from 'vitest';
import type { TraceOccurrence } from '../plan/trace.ts';
import type { AttemptRecord } from '../evidence/evidence-types.ts';
import { UNSAFE_VARIANTS } from '../../src/cli/unsafe-catalogue.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { ServerControl } from '../routes/server-control.ts';
import type { CellOutcome, CellRun } from './fault.ts';
import { NORMAL_LEASE_TTL_MS } from './fault.ts';
import { acknowledgedCheck, powerLossFault, recoveryCheck } from './power-loss-fault.ts';

const trace: TraceOccurrence[] = [
  'journal.read:before',
  'journal.create:after',
  'cas:PREPARING->PREPARED:before',
  'cas:PREPARING->PREPARED:after',
  'target.commit:before',
  'target.commit:after',
].map((point) => ({ point, hit: 1 }));

describe('power-loss plan', () => {
  it('cuts the power at every transition point of the clean trace, each a cell of its own', () => {
    const drafts = powerLossFault.plan(
      { kind: 'power-loss' },
      { seed: 42, traces: { clean: trace, recovery: new Map(), cleanDurationMs: 0 } },
    );
    expect(drafts.map((d) => d.localId)).toEqual([
      'journal/journal.create:after#1',
      'journal/cas:PREPARING->PREPARED:before#1',
      'journal/cas:PREPARING->PREPARED:after#1',
      'journal/target.commit:before#1',
      'journal/target.commit:after#1',
    ]);
    expect(drafts[0]!.fault).toMatchObject({
      kind: 'power-loss',
      storage: 'journal',
      point: 'journal.create:after',
    });
  });

  it('runs journal-sync-off, -normal and state-folder-unsynced only where the killed attempt has committed a journal write', () => {
    const late = [
      { point: 'journal.read:before', hit: 1 },
      { point: 'cas:PREPARING->PREPARED:before', hit: 1 },
      { point: 'cas:PREPARING->PREPARED:after', hit: 1 },
    ];
    const drafts = powerLossFault.plan(
      { kind: 'power-loss' },
      { seed: 1, traces: { clean: late, recovery: new Map(), cleanDurationMs: 0 } },
    );
    expect(drafts.map((d) => [d.localId, d.sensitive, d.sensitiveTo])).toEqual([
      ['journal/cas:PREPARING->PREPARED:before#1', false, undefined],
      [
        'journal/cas:PREPARING->PREPARED:after#1',
        true,
        ['journal-sync-off', 'journal-sync-normal', 'state-folder-unsynced'],
      ],
    ]);
  });
});

describe('power-loss plan under the target', () => {
  const statements: TraceOccurrence[] = [
    'cas:PREPARED->COMMITTING:after',
    'stmt:prepare.1:before',
    'stmt:prepare.1:after',
    'stmt:mutate.1:before',
    'stmt:mutate.1:after',
    'stmt:mutate.2:before',
    'stmt:mutate.2:after',
    'target.commit:before',
  ].map((point) => ({ point, hit: 1 }));

  it('cuts at every transition, then at every statement boundary of the mutation step, on the target', () => {
    const drafts = powerLossFault.plan(
      { kind: 'power-loss', storages: ['target'] },
      { seed: 42, traces: { clean: trace, recovery: new Map(), cleanDurationMs: 0, statements } },
    );
    expect(drafts.map((d) => d.localId)).toEqual([
      'target/journal.create:after#1',
      'target/cas:PREPARING->PREPARED:before#1',
      'target/cas:PREPARING->PREPARED:after#1',
      'target/target.commit:before#1',
      'target/target.commit:after#1',
      'target/stmt:mutate.1:before#1',
      'target/stmt:mutate.1:after#1',
      'target/stmt:mutate.2:after#1',
    ]);
    expect(drafts.every((d) => d.fault.storage === 'target')).toBe(true);
    // target-sync-off/-normal only where the killed attempt's mutation had committed: caught on every run there.
    expect(drafts.filter((d) => d.sensitive).map((d) => [d.localId, d.sensitiveTo])).toEqual([
      ['target/target.commit:after#1', ['target-sync-off', 'target-sync-normal']],
    ]);
  });

  it('plans the journal alone by default, both storages when asked (journal first)', () => {
    const context = {
      seed: 42,
      traces: { clean: trace, recovery: new Map(), cleanDurationMs: 0, statements },
    };
    const byDefault = powerLossFault.plan({ kind: 'power-loss' }, context);
    expect(byDefault.every((d) => d.localId.startsWith('journal/'))).toBe(true);
    const both = powerLossFault.plan({ kind: 'power-loss', storages: ['target', 'journal'] }, context);
    expect(both[0]!.localId).toBe('journal/journal.create:after#1');
    expect(both.length).toBe(byDefault.length + 8);
  });

  it('gives its cells a lease only the moved cell clock passes, never real time', () => {
    expect(powerLossFault.leaseTtlMs({ kind: 'power-loss' })).toBe(NORMAL_LEASE_TTL_MS);
  });
});

describe('power-loss-recovery', () => {
  const retry = (mutated: boolean | null, exit = 0, status = 'committed'): AttemptRecord =>
    ({ role: 'retry', exit_code: exit, signal: null, status, mutated }) as unknown as AttemptRecord;

  it('PASSes a retry that writes exactly when the load did not survive the cut', () => {
    expect(recoveryCheck(retry(true), false).verdict).toBe('PASS');
    expect(recoveryCheck(retry(false, 0, 'already-complete'), true).verdict).toBe('PASS');
  });

  it('FAILs success without the rows, a second write over surviving rows, and a failed retry', () => {
    expect(recoveryCheck(retry(false, 0, 'completed-after-recovery'), false)).toMatchObject({
      verdict: 'FAIL',
      detail: expect.stringContaining('without the load'),
    });
    expect(recoveryCheck(retry(true), true).verdict).toBe('FAIL');
    expect(recoveryCheck(retry(null, 29, ''), false).verdict).toBe('FAIL');
  });
});

describe('power-loss plan under a server', () => {
  const full: TraceOccurrence[] = [
    ...trace,
    'cas:COMMITTING->TARGET_COMMITTED:before',
    'cas:COMMITTING->TARGET_COMMITTED:after',
    'cas:TARGET_COMMITTED->COMPLETE:after',
  ].map((o) => (typeof o === 'string' ? { point: o, hit: 1 } : o));

  it('cuts right after every journal write and after the target commit, never at a :before point', () => {
    const drafts = powerLossFault.plan(
      { kind: 'power-loss', storages: ['server'] },
      { seed: 42, traces: { clean: full, recovery: new Map(), cleanDurationMs: 0 } },
    );
    expect(drafts.map((d) => d.localId)).toEqual([
      'server/journal.create:after#1',
      'server/cas:PREPARING->PREPARED:after#1',
      'server/target.commit:after#1',
      'server/cas:COMMITTING->TARGET_COMMITTED:after#1',
      'server/cas:TARGET_COMMITTED->COMPLETE:after#1',
    ]);
    expect(drafts.every((d) => d.fault.storage === 'server' && d.fault.kind === 'power-loss')).toBe(true);
    // Every one follows a committed journal write: each is run again with the server that never syncs.
    const neverSyncs = Object.entries(UNSAFE_VARIANTS)
      .filter(([, variant]) => variant.server?.neverSyncs === true)
      .map(([name]) => name);
    expect(neverSyncs.length).toBe(1);
    expect(new Set(drafts.map((d) => JSON.stringify([d.sensitive, d.sensitiveTo])))).toEqual(
      new Set([JSON.stringify([true, neverSyncs])]),
    );
  });
});

describe('power-loss-acknowledged', () => {
  it('PASSes when nothing was acknowledged COMPLETE, or the acknowledged load survived', () => {
    expect(acknowledgedCheck(['COMMITTING v4'], false).verdict).toBe('PASS');
    expect(acknowledgedCheck([], false).verdict).toBe('PASS');
    expect(acknowledgedCheck(['COMPLETE v6'], true).verdict).toBe('PASS');
  });

  it('FAILs an operation acknowledged COMPLETE whose load the cut took', () => {
    expect(acknowledgedCheck(['COMPLETE v6'], false)).toMatchObject({
      name: 'power-loss-acknowledged',
      verdict: 'FAIL',
      detail: expect.stringContaining('acknowledged COMPLETE'),
    });
  });
});

describe('power-loss under a server: believed only when shown', () => {
  const at = { point: 'target.commit:after', hit: 1 };
  const killed = { role: 'first', exit_code: null, signal: 'SIGKILL' } as unknown as AttemptRecord;
  const calls: string[] = [];
  const server = (dataDir: string, mountPoint: string, writes: () => number): ServerControl => ({
    label: 'server',
    kill: async () => void calls.push('kill'),
    start: async () => void calls.push('start'),
    power: {
      dataDir,
      mountPoint,
      cut: async () => void calls.push('cut'),
      syncAll: async () => void calls.push('sync'),
      stats: async () => ({ writes: writes(), fsyncs: 0, unsynced: 0, dirsahead: 0 }),
    },
  });
  const run = (servers: Record<string, ServerControl | undefined> | Error): CellRun => {
    calls.length = 0;
    return {
      cell: { route: 'r', variant: null, params: { at, storage: 'server' } },
      fixture: {
        isolateServers: async () => {
          if (servers instanceof Error) throw servers;
          return servers;
        },
        fingerprint: async () => 'sha256:same',
        openJournal: async () => ({ list: async () => [], get: async () => null, close: async () => {} }),
        inspector: {
          snapshot: async () => ({
            target_digest: 'a',
            source_digest: 'b',
            row_count: 0,
            source_row_count: 20,
          }),
        },
      },
      killAt: async () => ({ record: killed, hit: true }),
    } as unknown as CellRun;
  };
  const spec = { kind: 'power-loss', storages: ['server'] } as const;
  const unverified = (outcome: CellOutcome) => outcome.extraChecks?.find((c) => c.verdict === 'UNVERIFIED');

  it('is UNVERIFIED when the target server offers no cut, or says its data is off the mount', async () => {
    const none = await powerLossFault.run(
      run({ target: { label: 's', kill: async () => {}, start: async () => {} } }),
      spec,
    );
    expect(unverified(none)?.detail).toMatch(/does not keep its data directory on the power-loss filesystem/);
    const elsewhere = await powerLossFault.run(
      run({ target: server('/var/data', '/mnt/lossy', () => 1) }),
      spec,
    );
    expect(unverified(elsewhere)?.detail).toMatch(/does not keep its data directory/);
    expect(calls).not.toContain('cut');
  });

  it('is UNVERIFIED, naming why, when the environment cannot place the server on the filesystem', async () => {
    const refused = new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'provider docker cannot place a data directory',
    );
    const outcome = await powerLossFault.run(run(refused), spec);
    expect(unverified(outcome)).toMatchObject({
      name: 'power-loss-filesystem',
      detail: expect.stringContaining('docker'),
    });
  });

  it('is UNVERIFIED when the server wrote nothing through the mount during the attempt: nothing is cut', async () => {
    const outcome = await powerLossFault.run(
      run({ target: server('/mnt/lossy/data', '/mnt/lossy', () => 7) }),
      spec,
    );
    expect(unverified(outcome)?.detail).toMatch(/wrote nothing through the power-loss filesystem/);
    expect(calls).toEqual(['sync']);
  });

  it('kills, cuts and restarts one server once, also when the journal shares it', async () => {
    let writes = 7;
    const shared = (): ServerControl => server('/mnt/lossy/data', '/mnt/lossy', () => writes++);
    const cell = run({ target: shared(), journal: shared() });
    const outcome = await powerLossFault.run(
      {
        ...cell,
        expireLeases: async () => {},
        run: async () => ({ role: 'retry', exit_code: 0, mutated: true, status: 'committed' }),
      } as unknown as CellRun,
      spec,
    );
    expect(calls).toEqual(['sync', 'kill', 'cut', 'start']);
    expect(outcome.extraChecks?.map((c) => [c.name, c.verdict])).toContainEqual([
      'power-loss-durable',
      'PASS',
    ]);
  });
});
