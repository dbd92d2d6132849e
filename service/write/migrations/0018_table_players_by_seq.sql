-- A table's player rows by the table: the trigger of 0017 deletes a table's names that
-- left (`WHERE seq = ...`) and a table's deletion cascades to them, and the primary key
-- (player, seq) cannot find them by `seq`. Each command that changed a table's players
-- (a seat taken or handed over) read all of table_players: 118 ms with 1.2 million rows,
-- inside the commit, which a group commit's other members waited for.
CREATE INDEX table_players_by_seq ON table_players (seq);
