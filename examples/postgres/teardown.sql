-- Removes everything examples/postgres/setup.sql created. Run as the same role:
--   psql -v ON_ERROR_STOP=1 -f examples/postgres/teardown.sql
DROP DATABASE IF EXISTS dpone_example_app WITH (FORCE);
DROP DATABASE IF EXISTS dpone_example_dw WITH (FORCE);
DROP DATABASE IF EXISTS dpone_example_ops WITH (FORCE);
DROP ROLE IF EXISTS dpone_reader;
DROP ROLE IF EXISTS dpone_loader;
DROP ROLE IF EXISTS dpone_journal;
