-- Each table's players, one row a name, in the order of the listing (`seq`): the
-- listing filtered by a player (`GET /tables?player=`) reads a name's tables newest
-- first and stops at the page's end. It tested every table's `players` array instead,
-- and a name nobody had read the whole store (0.24 s on 300,000 tables), which a client
-- within its rate budget could ask for over and over. Kept by a trigger, in the same
-- transaction as the table's row; a command that leaves the names as they were costs
-- only the comparison.
CREATE TABLE table_players (
    player  text NOT NULL,
    seq     bigint NOT NULL REFERENCES tables (seq) ON DELETE CASCADE,
    PRIMARY KEY (player, seq)
);
INSERT INTO table_players (player, seq)
    SELECT DISTINCT p, t.seq FROM tables t, unnest(t.players) AS p;

CREATE FUNCTION table_players_kept() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM table_players
            WHERE seq = NEW.seq AND NOT (player = ANY (NEW.players));
    END IF;
    INSERT INTO table_players (player, seq)
        SELECT DISTINCT p, NEW.seq FROM unnest(NEW.players) AS p
        ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;

CREATE TRIGGER table_players_on_insert AFTER INSERT ON tables
    FOR EACH ROW EXECUTE FUNCTION table_players_kept();
CREATE TRIGGER table_players_on_update AFTER UPDATE OF players ON tables
    FOR EACH ROW WHEN (OLD.players IS DISTINCT FROM NEW.players)
    EXECUTE FUNCTION table_players_kept();
