import { ENTRY_COLUMNS, HISTORY_COLUMNS } from '../../../src/adapters/journal/journal-row.ts';

/**
 * Schema of the PostgreSQL journal, created idempotently on open under an advisory lock (two
 * processes opening a fresh database at once would otherwise race on the catalog). History is
 * append-only: a trigger refuses any UPDATE or DELETE of a history row.
 *
 * Every row carries a checksum of its fields (`row_checksum`, SHA-256 of the fields in column
 * order as a JSON array, computed by the server: the journal's writes compute new fields in SQL).
 * The journal writes the marker `'seal'` and a trigger replaces it with the checksum; a write that
 * does not (an UPDATE behind the journal's back, a writer from before checksums) leaves the old
 * checksum, or none, and every read of the journal compares: a mismatch is
 * DPONE_TARGET_COMMIT_JOURNAL_CORRUPT, never a state, an intent conflict or a divergence.
 * A journal created before checksums gains the column and a checksum for every row on its next
 * read-write open (the READY probe sees the column missing); from then on a row without one is damage.
 */
export const POSTGRES_JOURNAL_LOCK_KEY = 0x64706f6e; // "dpon"

/** True when both tables and the append-only trigger exist in the search path. */
export const POSTGRES_JOURNAL_READY =
  "SELECT to_regclass('dpone_commit_journal') IS NOT NULL AND EXISTS (SELECT 1 FROM pg_trigger " +
  "WHERE tgname = 'dpone_commit_journal_history_no_change' " +
  "AND tgrelid = to_regclass('dpone_commit_journal_history')) AND (SELECT count(*) = 2 FROM pg_trigger " +
  "WHERE tgname = 'dpone_commit_journal_sealed' " +
  "AND tgrelid IN (to_regclass('dpone_commit_journal'), to_regclass('dpone_commit_journal_history'))) AS ready, " +
  "to_regclass('dpone_commit_journal') IS NOT NULL AS present";

/** The checksum column of both tables. */
export const CHECKSUM_COLUMN = 'row_checksum';

/** What the journal writes into CHECKSUM_COLUMN: the trigger replaces it with the row's checksum. */
export const SEAL = "'seal'";

const digestOf = (columns: readonly string[]) =>
  `encode(sha256(convert_to(json_build_array(${columns.map((c) => `r.${c}`).join(', ')})::text, 'UTF8')), 'hex')`;

/** SQL true when the row aliased `alias` of the entry table carries the checksum of its fields. */
export function entryIntact(alias: string): string {
  return `${alias}.${CHECKSUM_COLUMN} IS NOT DISTINCT FROM dpone_commit_journal_seal_of(${alias})`;
}

/** The same for a history row. */
export function historyIntact(alias: string): string {
  return `${alias}.${CHECKSUM_COLUMN} IS NOT DISTINCT FROM dpone_commit_journal_history_seal_of(${alias})`;
}

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
ALTER TABLE dpone_commit_journal ADD COLUMN IF NOT EXISTS row_checksum TEXT;
ALTER TABLE dpone_commit_journal_history ADD COLUMN IF NOT EXISTS row_checksum TEXT;
CREATE OR REPLACE FUNCTION dpone_commit_journal_seal_of(r dpone_commit_journal) RETURNS text
  LANGUAGE sql STABLE AS $$ SELECT ${digestOf(ENTRY_COLUMNS)} $$;
CREATE OR REPLACE FUNCTION dpone_commit_journal_history_seal_of(r dpone_commit_journal_history) RETURNS text
  LANGUAGE sql STABLE AS $$ SELECT ${digestOf(HISTORY_COLUMNS)} $$;
CREATE OR REPLACE FUNCTION dpone_commit_journal_seal_row() RETURNS trigger
  LANGUAGE plpgsql AS $$ BEGIN
    IF NEW.row_checksum = 'seal' THEN NEW.row_checksum := dpone_commit_journal_seal_of(NEW); END IF;
    RETURN NEW; END $$;
CREATE OR REPLACE FUNCTION dpone_commit_journal_history_seal_row() RETURNS trigger
  LANGUAGE plpgsql AS $$ BEGIN
    IF NEW.row_checksum = 'seal' THEN NEW.row_checksum := dpone_commit_journal_history_seal_of(NEW); END IF;
    RETURN NEW; END $$;
DROP TRIGGER IF EXISTS dpone_commit_journal_sealed ON dpone_commit_journal;
CREATE TRIGGER dpone_commit_journal_sealed BEFORE INSERT OR UPDATE ON dpone_commit_journal
  FOR EACH ROW EXECUTE FUNCTION dpone_commit_journal_seal_row();
DROP TRIGGER IF EXISTS dpone_commit_journal_sealed ON dpone_commit_journal_history;
CREATE TRIGGER dpone_commit_journal_sealed BEFORE INSERT OR UPDATE ON dpone_commit_journal_history
  FOR EACH ROW EXECUTE FUNCTION dpone_commit_journal_history_seal_row();
CREATE OR REPLACE FUNCTION dpone_commit_journal_history_append_only() RETURNS trigger
  LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'journal history is append-only'; END $$;
DROP TRIGGER IF EXISTS dpone_commit_journal_history_no_change ON dpone_commit_journal_history;
-- Rows from before checksums get theirs (only here: the READY probe skips this once sealed).
UPDATE dpone_commit_journal SET row_checksum = 'seal' WHERE row_checksum IS NULL;
UPDATE dpone_commit_journal_history SET row_checksum = 'seal' WHERE row_checksum IS NULL;
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
    /(?<![\w.])dpone_commit_journal(_history)?(_append_only|_seal_of|_seal_row)?(?!\w)/g,
    (name) => `${schema}.${name}`,
  );
}
