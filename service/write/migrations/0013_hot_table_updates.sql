-- Every command rewrites its table's row. Postgres can then update the row in place on
-- its page (a "HOT" update: no new entry in any of the table's nine indexes) only when
-- no indexed column changes, and `updated_at`, which changes with every command, was the
-- key of the computer players' index. That index now keys on `seq`, which never changes
-- (the worker still takes the longest-waiting tables first: it sorts the few tables
-- waiting on the computer), and pages keep room for the new versions of their rows.
DROP INDEX tables_computer_turn;
CREATE INDEX tables_computer_turn ON tables (seq) WHERE computer_turn;
ALTER TABLE tables SET (fillfactor = 70);
