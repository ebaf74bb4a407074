import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DponeError } from '../../../src/contracts/errors.ts';
import { ERROR_CODES } from '../../../src/contracts/errors.ts';
import {
  METADATA,
  create,
  dponeRejection,
  opId,
  rejectsWith,
  step,
} from '../../../testing/journal-conformance-kit.ts';
import { SqliteJournal } from './sqlite-journal.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dpone-sqlite-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function unavailableError(promise: Promise<unknown>): Promise<DponeError> {
  const error = await dponeRejection(promise);
  expect(error.code).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
  return error;
}

describe('SqliteJournal', () => {
  it('a takeover of a clock-faulted lease is told once, naming the holder and its expiry, after it is durable', async () => {
    const warnings: string[] = [];
    await using journal = await SqliteJournal.open(join(dir, 'journal.db'), {
      warn: (message) => warnings.push(message),
    });
    const id = opId('clock-fault-warning');
    const now = Date.parse('2026-07-18T00:00:00Z');
    const entry = await create(journal, id, now);
    const yearAhead = now + 365 * 86_400_000;
    const held = await journal.acquireLease({
      operationId: id,
      expectedVersion: entry.version,
      holder: 'pod-ahead:7',
      ttlMs: 30_000,
      nowMs: yearAhead,
    });
    expect(warnings).toEqual([]);
    await journal.acquireLease({
      operationId: id,
      expectedVersion: held.version,
      holder: 'b',
      ttlMs: 1,
      nowMs: now,
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('pod-ahead:7');
    expect(warnings[0]).toContain('2027-07-18T00:00:30.000Z');
    expect(warnings[0]).toContain('epoch 2');
    // A refused takeover (the lease is live) tells nothing.
    await rejectsWith(
      journal.acquireLease({
        operationId: id,
        expectedVersion: held.version + 1,
        holder: 'c',
        ttlMs: 1,
        nowMs: now,
      }),
      ERROR_CODES.CAS_CONFLICT,
    );
    expect(warnings).toHaveLength(1);
  });

  it('survives close and reopen: entries and history are on disk, schema creation is idempotent', async () => {
    const path = join(dir, 'journal.db');
    const id = opId('reopen');
    {
      await using journal = await SqliteJournal.open(path);
      await step(journal, await create(journal, id), 'PREPARED');
    }
    await using reopened = await SqliteJournal.open(path);
    expect(await reopened.get(id)).toMatchObject({ state: 'PREPARED', version: 2, metadata: METADATA });
    expect((await reopened.history(id)).map((r) => r.to_state)).toEqual(['PREPARING', 'PREPARED']);
  });

  it('puts the file in WAL mode', async () => {
    const path = join(dir, 'journal.db');
    await using _journal = await SqliteJournal.open(path);
    const probe = new DatabaseSync(path);
    expect(probe.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    probe.close();
  });

  it('refuses to rewrite history: the history table is append-only', async () => {
    const path = join(dir, 'journal.db');
    await using journal = await SqliteJournal.open(path);
    await create(journal, opId('append-only'));
    const probe = new DatabaseSync(path);
    expect(() => probe.exec("UPDATE dpone_commit_journal_history SET to_state = 'COMPLETE'")).toThrow(
      /append-only/,
    );
    expect(() => probe.exec('DELETE FROM dpone_commit_journal_history')).toThrow(/append-only/);
    probe.close();
    expect(await journal.history(opId('append-only'))).toHaveLength(1);
  });

  it('a path it cannot open is JOURNAL_UNAVAILABLE, with the driver error only as cause', async () => {
    const path = join(dir, 'no-such-dir', 'journal.db');
    const error = await unavailableError(SqliteJournal.open(path));
    expect(error.cause).toBeDefined();
    expect(JSON.stringify(error.toJSON())).not.toContain('no-such-dir');
  });

  it('a file that is not a database is JOURNAL_CORRUPT, naming the file: restore, do not retry', async () => {
    const path = join(dir, 'garbage.db');
    await writeFile(path, 'this is not an SQLite database, just some bytes of text '.repeat(40));
    const error = await SqliteJournal.open(path).then(
      () => null,
      (e: unknown) => e as DponeError,
    );
    expect(error?.code).toBe(ERROR_CODES.JOURNAL_CORRUPT);
    expect(error?.message).toContain(
      `${path} could not be read or written: its bytes are damaged (SQLITE_NOTADB)`,
    );
    expect(error?.toJSON().hint).toMatch(/^restore the journal/);
  });

  it('a write locked out past the busy timeout is JOURNAL_UNAVAILABLE and changes nothing', async () => {
    const path = join(dir, 'journal.db');
    await using journal = await SqliteJournal.open(path, { busyTimeoutMs: 50 });
    const entry = await create(journal, opId('locked'));
    const holder = new DatabaseSync(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const error = await unavailableError(step(journal, entry, 'PREPARED'));
      expect(error.fields.operationId).toBe(entry.operation_id);
      expect(error.message).not.toMatch(/UPDATE|SELECT|INSERT|database is locked|dpone_commit_journal/i);
      // Which of "locked, unreadable or closed" it was: the result code's fixed name.
      expect(error.message).toContain('(locked, unreadable or closed: SQLITE_BUSY)');
      expect(String((error.cause as Error).message)).toMatch(/locked|busy/i);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(await journal.get(entry.operation_id)).toEqual(entry);
    expect((await step(journal, entry, 'PREPARED')).version).toBe(2);
  });

  it('an open locked out past the busy timeout names SQLITE_BUSY, and the next open goes on', async () => {
    const path = join(dir, 'journal.db');
    await (await SqliteJournal.open(path))[Symbol.asyncDispose]();
    const holder = new DatabaseSync(path);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const error = await unavailableError(SqliteJournal.open(path, { busyTimeoutMs: 50 }));
      expect(error.message).toContain('SQLITE_BUSY');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    await using again = await SqliteJournal.open(path, { busyTimeoutMs: 50 });
    expect(await again.list()).toEqual([]);
  });

  it('after close every call is JOURNAL_UNAVAILABLE; close is idempotent', async () => {
    const journal = await SqliteJournal.open(join(dir, 'journal.db'));
    await journal.close();
    await journal.close();
    await rejectsWith(journal.list(), ERROR_CODES.JOURNAL_UNAVAILABLE);
    await rejectsWith(journal.history(opId('x')), ERROR_CODES.JOURNAL_UNAVAILABLE);
  });

  it('an existing file that holds no journal (emptied, another database) is refused, never re-created', async () => {
    const empty = join(dir, 'empty.db');
    await writeFile(empty, '');
    const error = await unavailableError(SqliteJournal.open(empty));
    expect(error.message).toMatch(/never re-created silently/);
    expect(statSync(empty).size).toBe(0);
    const other = join(dir, 'other.db');
    const db = new DatabaseSync(other);
    db.exec('CREATE TABLE t (a)');
    db.close();
    await unavailableError(SqliteJournal.open(other));
    await unavailableError(SqliteJournal.open(empty, { readOnly: true }));
    expect(statSync(empty).size).toBe(0);
  });

  it('a new journal appears whole: created under a temporary name, linked into place, nothing left beside it', async () => {
    const path = join(dir, 'fresh.db');
    await using journal = await SqliteJournal.open(path);
    await create(journal, opId('fresh'));
    expect(readdirSync(dir).filter((name) => name.includes('.creating-'))).toEqual([]);
    const racing = await Promise.all([1, 2, 3].map(() => SqliteJournal.open(join(dir, 'raced.db'))));
    await Promise.all(racing.map((j) => j.close()));
    expect(readdirSync(dir).filter((name) => name.startsWith('raced.db'))).toEqual(['raced.db']);
  });

  it('read-only: reads what is there, refuses every write, and creates nothing for a missing file', async () => {
    const path = join(dir, 'journal.db');
    const id = opId('read-only');
    {
      await using journal = await SqliteJournal.open(path);
      await step(journal, await create(journal, id), 'PREPARED');
    }
    await using reader = await SqliteJournal.open(path, { readOnly: true });
    expect(await reader.get(id)).toMatchObject({ state: 'PREPARED' });
    await expect(create(reader, opId('other'))).rejects.toMatchObject({ code: ERROR_CODES.INTERNAL });
    await unavailableError(SqliteJournal.open(join(dir, 'missing.db'), { readOnly: true }));
    expect(existsSync(join(dir, 'missing.db'))).toBe(false);
  });
});
