/**
 * Schema of the SQLite journal, created idempotently on open. History is append-only: triggers
 * refuse any UPDATE or DELETE of a history row, so a bug cannot rewrite what happened.
 */
export const SQLITE_JOURNAL_SCHEMA = `
CREATE TABLE IF NOT EXISTS dpone_commit_journal (
  operation_id TEXT PRIMARY KEY NOT NULL,
  intent_digest TEXT NOT NULL,
  state TEXT NOT NULL,
  version INTEGER NOT NULL CHECK (version >= 1),
  lease_holder TEXT,
  lease_epoch INTEGER,
  lease_expires_at_ms INTEGER,
  last_epoch INTEGER NOT NULL,
  metadata TEXT NOT NULL,
  result TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dpone_commit_journal_history (
  operation_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  kind TEXT NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  lease_holder TEXT,
  lease_epoch INTEGER,
  evidence TEXT NOT NULL,
  audit TEXT,
  PRIMARY KEY (operation_id, version)
) STRICT, WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS dpone_commit_journal_history_no_update
  BEFORE UPDATE ON dpone_commit_journal_history
  BEGIN SELECT RAISE(ABORT, 'journal history is append-only'); END;
CREATE TRIGGER IF NOT EXISTS dpone_commit_journal_history_no_delete
  BEFORE DELETE ON dpone_commit_journal_history
  BEGIN SELECT RAISE(ABORT, 'journal history is append-only'); END;
`;
