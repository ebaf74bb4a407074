/**
 * Schema of the PostgreSQL journal, created idempotently on open under an advisory lock (two
 * processes opening a fresh database at once would otherwise race on the catalog). History is
 * append-only: a trigger refuses any UPDATE or DELETE of a history row.
 */
export const POSTGRES_JOURNAL_LOCK_KEY = 0x64706f6e; // "dpon"

/** True when both tables and the append-only trigger exist in the search path. */
export const POSTGRES_JOURNAL_READY =
  "SELECT to_regclass('dpone_commit_journal') IS NOT NULL AND EXISTS (SELECT 1 FROM pg_trigger " +
  "WHERE tgname = 'dpone_commit_journal_history_no_change' " +
  "AND tgrelid = to_regclass('dpone_commit_journal_history')) AS ready";

export const POSTGRES_JOURNAL_SCHEMA = `
CREATE TABLE IF NOT EXISTS dpone_commit_journal (
  operation_id TEXT PRIMARY KEY,
  intent_digest TEXT NOT NULL,
  state TEXT NOT NULL,
  version BIGINT NOT NULL CHECK (version >= 1),
  lease_holder TEXT,
  lease_epoch BIGINT,
  lease_expires_at_ms BIGINT,
  last_epoch BIGINT NOT NULL,
  metadata TEXT NOT NULL,
  result TEXT,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS dpone_commit_journal_history (
  operation_id TEXT NOT NULL,
  version BIGINT NOT NULL,
  kind TEXT NOT NULL,
  from_state TEXT,
  to_state TEXT NOT NULL,
  at_ms BIGINT NOT NULL,
  lease_holder TEXT,
  lease_epoch BIGINT,
  evidence TEXT NOT NULL,
  audit TEXT,
  PRIMARY KEY (operation_id, version)
);
CREATE OR REPLACE FUNCTION dpone_commit_journal_history_append_only() RETURNS trigger
  LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'journal history is append-only'; END $$;
DROP TRIGGER IF EXISTS dpone_commit_journal_history_no_change ON dpone_commit_journal_history;
CREATE TRIGGER dpone_commit_journal_history_no_change
  BEFORE UPDATE OR DELETE ON dpone_commit_journal_history
  FOR EACH ROW EXECUTE FUNCTION dpone_commit_journal_history_append_only();
`;

/**
 * The journal's SQL with its tables (and the trigger function) named in `schema` when the URL names
 * one: a search_path would have to be a startup parameter or a session SET, which a pooler drops or
 * leaks to other clients. Trigger names belong to their table and stay as they are.
 */
export function inSchema(sql: string, schema: string | undefined): string {
  if (schema === undefined) return sql;
  return sql.replace(
    /(?<![\w.])dpone_commit_journal(_history(_append_only)?)?(?!\w)/g,
    (name) => `${schema}.${name}`,
  );
}
