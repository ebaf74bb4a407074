import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/contracts/errors.ts';
import { liveCluster, skipReason } from '../fixtures/live-cluster.ts';
import { sql } from '../fixtures/cluster-client.ts';
import {
  describeJournalClockConformance,
  describeJournalConformance,
} from '../../../testing/journal-conformance.ts';
import { PostgresJournal } from './postgres-journal.ts';

const cluster = liveCluster();
let databases = 0;

/** A fresh database per test: the schema bootstrap runs each time, as a first open does. */
async function freshJournalUrl(): Promise<string> {
  return cluster().url(await freshDatabaseName('journal'));
}

async function freshDatabaseName(prefix: string): Promise<string> {
  const c = cluster();
  const database = `${prefix}_${process.pid}_${++databases}`;
  await sql(c, 'postgres', [`CREATE DATABASE ${database}`]);
  return database;
}

// The suite's fixed instants need the caller's clock; the server clock has its own suite below.
describeJournalConformance(
  'postgres',
  async () => {
    const c = cluster();
    const url = await freshJournalUrl();
    const journal = await PostgresJournal.open(url, c.password, { leaseClock: 'caller' });
    // Child processes open the same journal through the CLI opener, password from the env.
    process.env.DPONE_JOURNAL_PASSWORD = c.password;
    return {
      journal,
      url,
      [Symbol.asyncDispose]: async () => {
        await journal.close();
      },
    };
  },
  skipReason !== undefined ? { skipReason } : { leaseOnCreate: true },
);

describe.skipIf(skipReason !== undefined)('postgres journal on the server clock (the default)', () => {
  let journal: PostgresJournal;
  beforeAll(async () => {
    if (skipReason !== undefined) return;
    journal = await PostgresJournal.open(await freshJournalUrl(), cluster().password);
  });
  afterAll(async () => {
    await journal?.close();
  });
  it('declares the server clock', () => {
    expect(journal.leaseClock).toBe('server');
  });
  describeJournalClockConformance(() => journal);
});

describe.skipIf(skipReason !== undefined)('postgres journal errors', () => {
  it('a wrong password is AUTHENTICATION_FAILED, a closed port JOURNAL_UNAVAILABLE, without URL, user or password', async () => {
    const c = cluster();
    const secret = 'not-the-password-4711';
    for (const [url, expected] of [
      [c.url('postgres'), { code: ERROR_CODES.AUTHENTICATION_FAILED, fields: { sqlstate: '28P01' } }],
      [
        `postgres://${c.user}@127.0.0.1:1/postgres?connect_timeout_ms=500`,
        { code: ERROR_CODES.JOURNAL_UNAVAILABLE },
      ],
    ] as const) {
      const error = await PostgresJournal.open(url, secret).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toMatchObject(expected);
      const shown = JSON.stringify(error) + String((error as Error).message);
      for (const leak of [secret, c.user, String(c.port), 'SELECT', 'CREATE'])
        expect(shown).not.toContain(leak);
    }
  });
});

describe.skipIf(skipReason !== undefined)(
  'postgres journal opened read-only (recovery inspect and plan)',
  () => {
    async function freshDatabase(): Promise<{ url: string; tables: () => Promise<number> }> {
      const c = cluster();
      const database = await freshDatabaseName('journal_ro');
      const tables = async () => {
        const [count] = await sql(c, database, [
          "SELECT count(*)::int AS n FROM pg_tables WHERE tablename LIKE 'dpone_%'",
        ]);
        return count!.rows[0].n as number;
      };
      return { url: c.url(database), tables };
    }

    it('creates no schema: a database without a journal is JOURNAL_UNAVAILABLE and stays empty', async () => {
      const { url, tables } = await freshDatabase();
      await expect(PostgresJournal.open(url, cluster().password, { readOnly: true })).rejects.toMatchObject({
        code: ERROR_CODES.JOURNAL_UNAVAILABLE,
      });
      expect(await tables()).toBe(0);
    });

    it('reads in READ ONLY transactions and refuses every write', async () => {
      const { url } = await freshDatabase();
      const id = `sha256:${'9'.repeat(64)}`;
      {
        await using writer = await PostgresJournal.open(url, cluster().password);
        await writer.createIntent({
          operationId: id,
          intentDigest: id,
          metadata: { workload_id: 'w', target_identity: 't' },
          nowMs: 1,
        });
      }
      await using reader = await PostgresJournal.open(url, cluster().password, { readOnly: true });
      expect(await reader.get(id)).toMatchObject({ state: 'PREPARING', version: 1 });
      expect(await reader.history(id)).toHaveLength(1);
      expect(await reader.list()).toEqual([id]);
      await expect(
        reader.acquireLease({ operationId: id, expectedVersion: 1, holder: 'h', ttlMs: 1, nowMs: 2 }),
      ).rejects.toMatchObject({ code: ERROR_CODES.INTERNAL });
    });
  },
);

describe.skipIf(skipReason !== undefined)('postgres journal rows carry checksums', () => {
  const id = `sha256:${'c'.repeat(64)}`;
  const intent = {
    operationId: id,
    intentDigest: id,
    metadata: { workload_id: 'w', target_identity: 't' },
    nowMs: 1,
  };

  /** The server's superuser, straight on the journal's database (behind the journal's back). */
  async function asSuperuser(database: string, statements: readonly string[]): Promise<void> {
    await sql(cluster(), database, statements);
  }

  it('a field changed behind the journal is JOURNAL_CORRUPT on read and on a compare-and-set, never a conflict', async () => {
    const database = await freshDatabaseName('journal_sum');
    const url = cluster().url(database);
    await using journal = await PostgresJournal.open(url, cluster().password, { leaseClock: 'caller' });
    await journal.createIntent(intent);
    await journal.acquireLease({ operationId: id, expectedVersion: 1, holder: 'h', ttlMs: 60_000, nowMs: 2 });
    expect(await journal.get(id)).toMatchObject({ state: 'PREPARING', version: 2 });
    await asSuperuser(database, ["UPDATE dpone_commit_journal SET state = 'PREPARED'"]);
    const corrupt = { code: ERROR_CODES.JOURNAL_CORRUPT, fields: { operationId: id } };
    await expect(journal.get(id)).rejects.toMatchObject(corrupt);
    await expect(
      journal.compareAndSet({
        operationId: id,
        expectedVersion: 2,
        expectedStates: new Set(['PREPARED'] as const),
        nextState: 'COMMITTING',
        evidence: { reason: 'test' },
        nowMs: 3,
      }),
    ).rejects.toMatchObject(corrupt);
    // The damage was not laundered by a write: it still reads as damage.
    await expect(journal.get(id)).rejects.toMatchObject(corrupt);
    // History rows too (the append-only trigger bypassed as a superuser can).
    await asSuperuser(database, [
      "UPDATE dpone_commit_journal SET state = 'PREPARING'",
      'SET session_replication_role = replica',
      "UPDATE dpone_commit_journal_history SET evidence = '{}' WHERE version = 1",
    ]);
    await expect(journal.get(id)).resolves.toMatchObject({ state: 'PREPARING' });
    await expect(journal.history(id)).rejects.toMatchObject(corrupt);
  });

  it('a journal from before checksums gains them on open; a row written without one afterwards is damage', async () => {
    const database = await freshDatabaseName('journal_old');
    const old = `sha256:${'0'.repeat(64)}`;
    await asSuperuser(database, [
      'CREATE TABLE dpone_commit_journal (operation_id TEXT PRIMARY KEY, intent_digest TEXT NOT NULL, state TEXT NOT NULL, version BIGINT NOT NULL, lease_holder TEXT, lease_epoch BIGINT, lease_expires_at_ms BIGINT, last_epoch BIGINT NOT NULL, metadata TEXT NOT NULL, result TEXT, created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)',
      'CREATE TABLE dpone_commit_journal_history (operation_id TEXT NOT NULL, version BIGINT NOT NULL, kind TEXT NOT NULL, from_state TEXT, to_state TEXT NOT NULL, at_ms BIGINT NOT NULL, lease_holder TEXT, lease_epoch BIGINT, evidence TEXT NOT NULL, audit TEXT, PRIMARY KEY (operation_id, version))',
      `INSERT INTO dpone_commit_journal VALUES ('${old}', '${old}', 'PREPARING', 1, NULL, NULL, NULL, 0, '{"workload_id":"w","target_identity":"t"}', NULL, 1, 1)`,
      `INSERT INTO dpone_commit_journal_history VALUES ('${old}', 1, 'transition', NULL, 'PREPARING', 1, NULL, NULL, '{"reason":"intent:created"}', NULL)`,
    ]);
    const url = cluster().url(database);
    // Read-only (recovery inspect) it is refused, saying why and how to upgrade; nothing changes.
    await expect(PostgresJournal.open(url, cluster().password, { readOnly: true })).rejects.toMatchObject({
      code: ERROR_CODES.JOURNAL_UNAVAILABLE,
      message: expect.stringContaining('from before row checksums'),
      fields: { hint: expect.stringContaining('read-write once') },
    });
    {
      await using journal = await PostgresJournal.open(url, cluster().password);
      expect(await journal.get(old)).toMatchObject({ state: 'PREPARING', version: 1 });
      expect(await journal.history(old)).toHaveLength(1);
    }
    // An older writer that does not know the column leaves it empty: read as damage, never trusted.
    await asSuperuser(database, [
      `INSERT INTO dpone_commit_journal (operation_id, intent_digest, state, version, last_epoch, metadata, created_at_ms, updated_at_ms) VALUES ('${id}', '${id}', 'PREPARING', 1, 0, '{}', 1, 1)`,
    ]);
    await using again = await PostgresJournal.open(url, cluster().password);
    expect(await again.get(old)).toMatchObject({ state: 'PREPARING' });
    await expect(again.get(id)).rejects.toMatchObject({ code: ERROR_CODES.JOURNAL_CORRUPT });
  });
});
