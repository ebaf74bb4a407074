import { describe, expect, it } from 'vitest';
import type { DponeError } from '../../../src/contracts/errors.ts';
import { ERROR_CODES } from '../../../src/contracts/errors.ts';
import { newEntry } from '../../../src/contracts/journal-rules.ts';
import {
  METADATA,
  casRequest,
  dponeRejection,
  opId,
  rejectsWith,
} from '../../../testing/journal-conformance-kit.ts';
import { entryToRow } from '../../../src/adapters/journal/journal-row.ts';
import { describeJournal } from '../../../src/cli/journal-durability.ts';
import { closedPortAnswer } from '../../../src/cli/journal-url.test-support.ts';
import { parseMssqlUrl } from './mssql-config.ts';
import { FakeMssql, driverError } from './mssql-fake-driver.ts';
import { MssqlJournal } from './mssql-journal.ts';
import { MSSQL_JOURNAL_SQL } from './mssql-statements.ts';
import type { CommitState } from '../../../src/contracts/states.ts';
import type {
  CompareAndSetChainRequest,
  CompareAndSetRequest,
  LeaseRequest,
} from '../../../src/ports/journal.ts';

const URL_WITH_SECRET = 'mssql://sa:hunter2-secret@db.example:1433/journal?encrypt=false';
const LEAKS = ['hunter2-secret', 'db.example', 'SELECT', 'UPDATE', 'INSERT', 'dpone_commit_journal'];

async function openFake(fake = new FakeMssql()) {
  const journal = await MssqlJournal.open(URL_WITH_SECRET, undefined, async () => fake.driver());
  fake.queries.length = 0;
  fake.events.length = 0;
  return { fake, journal };
}

/** An existing entry at version 1, with BIGINTs as strings the way the driver returns them. */
function storedRow(id: string) {
  const row = entryToRow(newEntry(id, `sha256:${'ab'.repeat(32)}`, METADATA, 1_000).entry);
  // The locked read carries the server's clock the write is planned with.
  return {
    ...row,
    version: String(row.version),
    created_at_ms: '1000',
    updated_at_ms: '1000',
    journal_now_ms: '2000',
  };
}

/** A journal over a fake server holding the entry `opId(name)` (answerStored). */
async function openStored(name: string, affected = 1) {
  const { fake, journal } = await openFake();
  const id = opId(name);
  answerStored(fake, id, affected);
  return { fake, journal, id };
}

/**
 * The server's answers to a change of an existing entry: the locked read finds `storedRow(id)`,
 * and every later statement's `SELECT @@ROWCOUNT AS affected` says `affected` (1: it applied).
 */
function answerStored(fake: FakeMssql, id: string, affected = 1): void {
  fake.respond = (q) =>
    q.text === MSSQL_JOURNAL_SQL.selectForUpdate
      ? { recordset: [storedRow(id)], rowsAffected: [1] }
      : { recordset: [{ affected }], rowsAffected: [affected, 1] };
}

/** The server's answers to a create: the conditional INSERT inserts, the other statements touch nothing. */
function answerCreated(fake: FakeMssql): void {
  fake.respond = (q) => ({
    recordset: [{ affected: q.text === MSSQL_JOURNAL_SQL.createIfAbsent ? 1 : 0 }],
    rowsAffected: [1],
  });
}

/** The CAS PREPARING -> PREPARED of the entry at version 1 (the fence is installed). */
function prepare(id: string): CompareAndSetRequest {
  return casRequest(id, 1, 'PREPARING', 'PREPARED', 2_000, 'fence:installed');
}

/** Holder `a` takes a 10 ms lease on the entry at version 1. */
function leaseOf(id: string, more: Partial<LeaseRequest> = {}): LeaseRequest {
  return { operationId: id, expectedVersion: 1, holder: 'a', ttlMs: 10, nowMs: 1_500, ...more };
}

/** A two-transition chain from version 1: PREPARING -> PREPARED -> `last`. */
function chainTo(id: string, last: CommitState): CompareAndSetChainRequest {
  return {
    operationId: id,
    expectedVersion: 1,
    transitions: [
      { expectedStates: new Set(['PREPARING']), nextState: 'PREPARED', evidence: { reason: 'a' } },
      { expectedStates: new Set(['PREPARED']), nextState: last, evidence: { reason: 'b' } },
    ],
    nowMs: 1_500,
  };
}

function expectNoLeak(error: DponeError): void {
  const shown = `${error.message} ${JSON.stringify(error)}`;
  for (const leak of LEAKS) expect(shown).not.toContain(leak);
}

describe('MssqlJournal (driver slice faked: no server needed)', () => {
  it('a connection failure is JOURNAL_UNAVAILABLE; the driver message stays in cause only', async () => {
    const fake = new FakeMssql();
    const cause = driverError(18456, "Login failed for user 'sa' (hunter2-secret) at db.example: SELECT 1");
    fake.connectError = cause;
    const error = await dponeRejection(
      MssqlJournal.open(URL_WITH_SECRET, undefined, async () => fake.driver()),
    );
    expect([error.code, error.cause]).toEqual([ERROR_CODES.JOURNAL_UNAVAILABLE, cause]);
    expectNoLeak(error);
    expect(fake.events).toEqual(['connect', 'close']);
  });

  it('creates its schema on open and tolerates a concurrent creator', async () => {
    const fake = new FakeMssql();
    fake.respond = (q) => {
      if (q.text.includes('CREATE TABLE dbo.dpone_commit_journal_history')) throw driverError(2714, 'exists');
      return { rowsAffected: [0] };
    };
    await using _journal = await MssqlJournal.open(URL_WITH_SECRET, undefined, async () => fake.driver());
    expect(fake.queries.filter((q) => q.text.includes('CREATE'))).toHaveLength(3);
  });

  it('CAS: @@ROWCOUNT 0 from the conditional UPDATE is CAS_CONFLICT, no history, rolled back', async () => {
    const { fake, journal, id } = await openStored('mssql-rowcount-0', 0);
    const error = await dponeRejection(journal.compareAndSet(prepare(id)));
    expect([error.code, error.fields.operationId]).toEqual([ERROR_CODES.CAS_CONFLICT, id]);
    expect(fake.queries.map((q) => q.text)).toEqual([
      MSSQL_JOURNAL_SQL.selectForUpdate,
      MSSQL_JOURNAL_SQL.casUpdate,
    ]);
    expect(fake.queries[1]!.params).toMatchObject({
      operation_id: id,
      expected_version: 1,
      version: 2,
      state: 'PREPARED',
    });
    expect(fake.events).toEqual(['begin', 'rollback']);
  });

  it('CAS: rowcount 1 appends the history row in the same transaction, then commits', async () => {
    const { fake, journal, id } = await openStored('mssql-rowcount-1');
    const entry = await journal.acquireLease(leaseOf(id));
    expect([entry.version, entry.lease?.epoch]).toEqual([2, 1]);
    expect(fake.queries.map((q) => [q.via, q.text])).toEqual([
      ['tx', MSSQL_JOURNAL_SQL.selectForUpdate],
      ['tx', MSSQL_JOURNAL_SQL.casUpdate],
      ['tx', MSSQL_JOURNAL_SQL.insertHistory],
    ]);
    expect(fake.queries[2]!.params).toMatchObject({
      operation_id: id,
      version: 2,
      kind: 'lease',
      lease_epoch: 1,
    });
    expect(fake.events).toEqual(['begin', 'commit']);
  });

  it("chain: every transition's UPDATE (version +1 each) and history row in ONE transaction, one commit", async () => {
    const { fake, journal, id } = await openStored('mssql-chain');
    const entry = await journal.compareAndSetChain({
      operationId: id,
      expectedVersion: 1,
      transitions: [
        {
          expectedStates: new Set(['PREPARING']),
          nextState: 'PREPARED',
          evidence: { reason: 'fence:prepared' },
        },
        {
          expectedStates: new Set(['PREPARED']),
          nextState: 'COMMITTING',
          evidence: { reason: 'mutation:begin' },
        },
      ],
      nowMs: 1_500,
    });
    expect([entry.state, entry.version, entry.updated_at_ms]).toEqual(['COMMITTING', 3, 2_000]);
    expect(fake.queries.map((q) => [q.via, q.text])).toEqual([
      ['tx', MSSQL_JOURNAL_SQL.selectForUpdate],
      ['tx', MSSQL_JOURNAL_SQL.casUpdate],
      ['tx', MSSQL_JOURNAL_SQL.insertHistory],
      ['tx', MSSQL_JOURNAL_SQL.casUpdate],
      ['tx', MSSQL_JOURNAL_SQL.insertHistory],
    ]);
    expect(fake.queries[1]!.params).toMatchObject({ expected_version: 1, version: 2, state: 'PREPARED' });
    expect(fake.queries[2]!.params).toMatchObject({
      version: 2,
      from_state: 'PREPARING',
      to_state: 'PREPARED',
    });
    expect(fake.queries[3]!.params).toMatchObject({ expected_version: 2, version: 3, state: 'COMMITTING' });
    expect(fake.queries[4]!.params).toMatchObject({
      version: 3,
      from_state: 'PREPARED',
      to_state: 'COMMITTING',
    });
    expect(fake.events).toEqual(['begin', 'commit']);
  });

  it('chain: a refused later transition or a lost UPDATE rolls the whole chain back', async () => {
    const { fake, journal, id } = await openStored('mssql-chain-refused');
    const illegal = await dponeRejection(journal.compareAndSetChain(chainTo(id, 'COMPLETE')));
    expect(illegal.code).toBe(ERROR_CODES.ILLEGAL_TRANSITION);
    expect(fake.queries.map((q) => q.text)).toEqual([MSSQL_JOURNAL_SQL.selectForUpdate]);
    expect(fake.events).toEqual(['begin', 'rollback']);
    fake.queries.length = 0;
    fake.events.length = 0;
    answerStored(fake, id, 0);
    const lostRace = await dponeRejection(journal.compareAndSetChain(chainTo(id, 'COMMITTING')));
    expect(lostRace.code).toBe(ERROR_CODES.CAS_CONFLICT);
    expect(fake.queries.map((q) => q.text)).toEqual([
      MSSQL_JOURNAL_SQL.selectForUpdate,
      MSSQL_JOURNAL_SQL.casUpdate,
    ]);
    expect(fake.events).toEqual(['begin', 'rollback']);
  });

  it('leases and instants come from the server clock (SYSUTCDATETIME), never the caller’s', async () => {
    const { fake, journal, id } = await openStored('mssql-server-clock');
    const yearAhead = 2_000 + 365 * 86_400_000;
    const entry = await journal.acquireLease(leaseOf(id, { nowMs: yearAhead }));
    expect(entry.lease?.expires_at_ms).toBe(2_010);
    expect(fake.queries[1]!.params).toMatchObject({ lease_expires_at_ms: 2_010, updated_at_ms: 2_000 });
    expect(MSSQL_JOURNAL_SQL.selectForUpdate).toContain('SYSUTCDATETIME()');
    fake.serverNowMs = 5_000;
    answerCreated(fake);
    const created = await journal.createIntent({
      operationId: opId('mssql-server-clock-create'),
      intentDigest: `sha256:${'ab'.repeat(32)}`,
      metadata: METADATA,
      nowMs: yearAhead,
      lease: { holder: 'a', ttlMs: 10 },
    });
    expect([created.entry.created_at_ms, created.entry.lease?.expires_at_ms]).toEqual([5_000, 5_010]);
    expect(fake.events).toContain('clock');
  });

  it('a lease with minEpoch writes max(last_epoch + 1, minEpoch) as the epoch and last_epoch', async () => {
    const { fake, journal, id } = await openStored('mssql-min-epoch');
    const entry = await journal.acquireLease(leaseOf(id, { minEpoch: 6 }));
    expect([entry.lease?.epoch, entry.last_epoch]).toEqual([6, 6]);
    expect(fake.queries[1]!.params).toMatchObject({ lease_epoch: 6, last_epoch: 6, expected_version: 1 });
    expect(fake.queries[2]!.params).toMatchObject({ kind: 'lease', lease_epoch: 6 });
  });

  it('a failing statement mid-transaction is JOURNAL_UNAVAILABLE without SQL; a deadlock is a CAS conflict', async () => {
    const { fake, journal } = await openFake();
    const id = opId('mssql-failure');
    const change = () => journal.compareAndSet(prepare(id));
    fake.respond = (q) => {
      if (q.text === MSSQL_JOURNAL_SQL.selectForUpdate)
        return { recordset: [storedRow(id)], rowsAffected: [1] };
      throw driverError(
        8152,
        `String or binary data would be truncated in INSERT INTO dpone_commit_journal (${q.text})`,
      );
    };
    const error = await dponeRejection(change());
    expect(error.code).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
    expectNoLeak(error);
    expect(fake.events).toEqual(['begin', 'rollback']);
    fake.respond = () => {
      throw driverError(1205, 'Transaction was deadlocked on lock resources; UPDATE dpone_commit_journal');
    };
    const deadlock = await dponeRejection(change());
    expect(deadlock.code).toBe(ERROR_CODES.CAS_CONFLICT);
    expectNoLeak(deadlock);
  });

  it('create-if-absent: inserted => created with history; a lost race (rowcount 0 or PK violation) => the existing entry', async () => {
    const { fake, journal } = await openFake();
    const id = opId('mssql-create');
    const request = {
      operationId: id,
      intentDigest: `sha256:${'ab'.repeat(32)}`,
      metadata: METADATA,
      nowMs: 1_000,
    };
    answerCreated(fake);
    expect((await journal.createIntent(request)).created).toBe(true);
    expect(fake.queries.map((q) => q.text)).toEqual([
      MSSQL_JOURNAL_SQL.createIfAbsent,
      MSSQL_JOURNAL_SQL.insertHistory,
    ]);
    for (const lose of [
      () => ({ recordset: [{ affected: 0 }], rowsAffected: [0] }),
      () => {
        throw driverError(2627, 'PRIMARY KEY');
      },
    ]) {
      fake.queries.length = 0;
      fake.respond = (q) =>
        q.text === MSSQL_JOURNAL_SQL.select ? { recordset: [storedRow(id)], rowsAffected: [1] } : lose();
      const result = await journal.createIntent({ ...request, intentDigest: `sha256:${'cd'.repeat(32)}` });
      expect([result.created, result.entry.intent_digest, result.entry.version]).toEqual([
        false,
        `sha256:${'ab'.repeat(32)}`,
        1,
      ]);
      expect(fake.queries.map((q) => q.text)).not.toContain(MSSQL_JOURNAL_SQL.insertHistory);
    }
  });

  it('create with a lease: the leased row (version 2) and both history rows in the one transaction', async () => {
    const { fake, journal } = await openFake();
    answerCreated(fake);
    const created = await journal.createIntent({
      operationId: opId('mssql-create-leased'),
      intentDigest: `sha256:${'ab'.repeat(32)}`,
      metadata: METADATA,
      nowMs: 1_000,
      lease: { holder: 'pod-a', ttlMs: 100 },
    });
    expect([created.created, created.entry.version, created.entry.lease]).toEqual([
      true,
      2,
      { holder: 'pod-a', epoch: 1, expires_at_ms: 1_100 },
    ]);
    expect(fake.queries.map((q) => q.text)).toEqual([
      MSSQL_JOURNAL_SQL.createIfAbsent,
      MSSQL_JOURNAL_SQL.insertHistory,
      MSSQL_JOURNAL_SQL.insertHistory,
    ]);
    expect(new Set(fake.queries.map((q) => q.via)).size).toBe(1);
    expect(fake.queries[0]!.params).toMatchObject({ version: 2, lease_holder: 'pod-a', lease_epoch: 1 });
    expect(fake.queries.slice(1).map((q) => q.params)).toMatchObject([
      { version: 1, kind: 'intent' },
      { version: 2, kind: 'lease', lease_epoch: 1 },
    ]);
  });

  it('after close every call is JOURNAL_UNAVAILABLE and the pool is closed once', async () => {
    const { fake, journal } = await openFake();
    await journal.close();
    await journal.close();
    await rejectsWith(journal.get(opId('closed')), ERROR_CODES.JOURNAL_UNAVAILABLE);
    expect(fake.events).toEqual(['close']);
  });
});

describe('parseMssqlUrl', () => {
  it('reads host, port, database, user and flags; the explicit password wins over the URL one', () => {
    const config = parseMssqlUrl(
      'mssql://sa:in-url@h:14330/jdb?encrypt=false&trustServerCertificate=true',
      'from-env',
    );
    expect(config).toMatchObject({
      server: 'h',
      port: 14330,
      database: 'jdb',
      user: 'sa',
      password: 'from-env',
    });
    expect(config.options).toEqual({ encrypt: false, trustServerCertificate: true });
    expect(parseMssqlUrl('sqlserver://sa:p%40ss@h/db').password).toBe('p@ss');
  });

  it('a bad URL is INVALID_INPUT naming --journal, with the password redacted', () => {
    for (const url of ['mssql://sa:hunter2-secret@/db', 'mssql://sa:hunter2-secret@h/db?encrypt=maybe']) {
      let error: unknown;
      try {
        parseMssqlUrl(url);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: ERROR_CODES.INVALID_INPUT, fields: { field: '--journal' } });
      expect((error as Error).message).not.toContain('hunter2-secret');
    }
  });
});

describe('an MSSQL journal URL through the CLI (journal-url.ts, journal-durability.ts)', () => {
  it('an unreachable SQL Server (real driver, closed port) is JOURNAL_UNAVAILABLE without credentials', async () => {
    const { error, shown } = await closedPortAnswer('mssql://sa@127.0.0.1:1/journal?encrypt=false');
    expect(error.code).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
    // The MSSQL journal itself answered (reached through its engine entry, connectors/mssql/engine.ts),
    // not the generic "could not be opened" of an adapter that failed to load.
    expect(error.message).toContain('MSSQL commit journal');
    expect(shown).not.toMatch(/hunter2-secret|127\.0\.0\.1|sa@/);
  });

  it('a sqlserver:// journal is an MSSQL server journal: durable', () => {
    expect(describeJournal('sqlserver://sa@sql:1433/j', '/work')).toMatchObject({
      kind: 'mssql',
      durable: true,
    });
  });
});
