-- Liveness (DESIGN 10). The earliest deadline of a table's running clocks, kept by the
-- inline projection, so the timekeeper finds what is due with one index; a token's
-- epoch, so that leaving or being replaced revokes it (the table counts the epochs); and
-- the timekeeper's heartbeat, so that a new leader knows how long no timekeeper ran.

ALTER TABLE tables ADD COLUMN deadline timestamptz;
CREATE INDEX tables_deadline ON tables (deadline) WHERE deadline IS NOT NULL;

ALTER TABLE seat_tokens ADD COLUMN epoch integer NOT NULL DEFAULT 0;
ALTER TABLE seat_tokens DROP CONSTRAINT seat_tokens_table_id_seat_key;
ALTER TABLE seat_tokens ADD CONSTRAINT seat_tokens_table_id_seat_epoch_key
    UNIQUE (table_id, seat, epoch);

CREATE TABLE timekeeper_heartbeat (
    id        integer PRIMARY KEY CHECK (id = 1),
    alive_at  timestamptz NOT NULL
);

-- A tournament's clock, given to every table opened in it.
ALTER TABLE tournaments ADD COLUMN clock jsonb;
