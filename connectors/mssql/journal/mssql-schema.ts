/**
 * T-SQL schema of the MSSQL journal, created idempotently on open (each statement checks first;
 * a concurrent creator's "object exists" error is ignored by the adapter). History is append-only:
 * an INSTEAD OF trigger refuses UPDATE and DELETE of history rows.
 */
export const MSSQL_ENTRY_TABLE = 'dbo.dpone_commit_journal';
export const MSSQL_HISTORY_TABLE = 'dbo.dpone_commit_journal_history';

export const MSSQL_JOURNAL_SCHEMA: readonly string[] = [
  `IF OBJECT_ID(N'${MSSQL_ENTRY_TABLE}', N'U') IS NULL
CREATE TABLE ${MSSQL_ENTRY_TABLE} (
  operation_id NVARCHAR(200) NOT NULL CONSTRAINT pk_dpone_commit_journal PRIMARY KEY,
  intent_digest NVARCHAR(200) NOT NULL,
  state NVARCHAR(32) NOT NULL,
  version BIGINT NOT NULL CHECK (version >= 1),
  lease_holder NVARCHAR(200) NULL,
  lease_epoch BIGINT NULL,
  lease_expires_at_ms BIGINT NULL,
  last_epoch BIGINT NOT NULL,
  metadata NVARCHAR(MAX) NOT NULL,
  result NVARCHAR(MAX) NULL,
  created_at_ms BIGINT NOT NULL,
  updated_at_ms BIGINT NOT NULL
)`,
  `IF OBJECT_ID(N'${MSSQL_HISTORY_TABLE}', N'U') IS NULL
CREATE TABLE ${MSSQL_HISTORY_TABLE} (
  operation_id NVARCHAR(200) NOT NULL,
  version BIGINT NOT NULL,
  kind NVARCHAR(16) NOT NULL,
  from_state NVARCHAR(32) NULL,
  to_state NVARCHAR(32) NOT NULL,
  at_ms BIGINT NOT NULL,
  lease_holder NVARCHAR(200) NULL,
  lease_epoch BIGINT NULL,
  evidence NVARCHAR(MAX) NOT NULL,
  audit NVARCHAR(MAX) NULL,
  CONSTRAINT pk_dpone_commit_journal_history PRIMARY KEY (operation_id, version)
)`,
  `IF OBJECT_ID(N'dbo.dpone_commit_journal_history_append_only', N'TR') IS NULL
EXEC(N'CREATE TRIGGER dbo.dpone_commit_journal_history_append_only
ON ${MSSQL_HISTORY_TABLE} INSTEAD OF UPDATE, DELETE AS
BEGIN
  THROW 51000, ''journal history is append-only'', 1;
END')`,
];
