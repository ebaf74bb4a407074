-- dpone PostgreSQL example: what a DBA runs ONCE, as a superuser (or a role with CREATEROLE and
-- CREATEDB that may create tables in the new databases). It creates three login roles with the
-- least each needs, a source database with sample rows, a target database whose schema `dw` holds
-- the fence table and the target table (both owned by the role running this script, never by a
-- loader, so several loader roles can share them), and a journal database for the journal role.
--
--   psql -v ON_ERROR_STOP=1 \
--        -v reader_password="$DPONE_SOURCE_PASSWORD" \
--        -v loader_password="$DPONE_TARGET_PASSWORD" \
--        -v journal_password="$DPONE_JOURNAL_PASSWORD" \
--        -f examples/postgres/setup.sql
--
-- Undo with examples/postgres/teardown.sql.

CREATE ROLE dpone_reader LOGIN PASSWORD :'reader_password';
CREATE ROLE dpone_loader LOGIN PASSWORD :'loader_password';
CREATE ROLE dpone_journal LOGIN PASSWORD :'journal_password';

CREATE DATABASE dpone_example_app;
CREATE DATABASE dpone_example_dw;
-- The journal role owns its database: it creates its two tables there on first use.
CREATE DATABASE dpone_example_ops OWNER dpone_journal;

\connect dpone_example_app
CREATE TABLE public.orders (
  id BIGINT NOT NULL,
  day DATE NOT NULL,
  amount NUMERIC(12, 2) NOT NULL,
  ratio DOUBLE PRECISION,
  placed_at TIMESTAMPTZ NOT NULL,
  region TEXT
);
INSERT INTO public.orders VALUES
  (1, '2026-07-05', 19.99, 1.0 / 3, '2026-07-05 08:15:00+00', 'eu'),
  (2, '2026-07-05', 250.00, 0.1 + 0.2, '2026-07-05 12:00:00+00', 'us'),
  (3, '2026-07-05', 7.50, NULL, '2026-07-05 23:59:59.999999+00', NULL),
  (4, '2026-07-06', 3.00, 2, '2026-07-06 00:00:00+00', 'eu');
-- Source: read the one table.
GRANT SELECT ON public.orders TO dpone_reader;

\connect dpone_example_dw
CREATE SCHEMA dw;
-- The fence: one row per operation, turned `committed` in the same transaction as the data.
CREATE TABLE dw._dpone_fence (
  operation_id TEXT PRIMARY KEY,
  epoch BIGINT NOT NULL,
  status TEXT NOT NULL,
  committed_epoch BIGINT,
  rows_written BIGINT,
  intent_digest TEXT,
  holder TEXT,
  updated_at_ms BIGINT NOT NULL
);
-- The target: the source's types, and the key you want (dpone writes each partition once).
CREATE TABLE dw.events (
  id BIGINT PRIMARY KEY,
  day DATE NOT NULL,
  amount NUMERIC(12, 2) NOT NULL,
  ratio DOUBLE PRECISION,
  placed_at TIMESTAMPTZ NOT NULL,
  region TEXT
);
-- Target: find the schema, install and raise the fence, write the data (DELETE for
-- replace-partition). No CREATE anywhere: every table already exists.
GRANT USAGE ON SCHEMA dw TO dpone_loader;
GRANT SELECT, INSERT, UPDATE ON dw._dpone_fence TO dpone_loader;
GRANT SELECT, INSERT, DELETE ON dw.events TO dpone_loader;
-- Another team loading into this database gets the same three grants (with its own target table).
