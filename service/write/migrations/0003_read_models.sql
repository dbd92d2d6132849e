-- Read side: listing columns on the inline snapshot, tournaments, async read models.

ALTER TABLE tables ADD COLUMN players text[] NOT NULL DEFAULT '{}';
CREATE INDEX tables_players ON tables USING gin (players);
CREATE INDEX tables_by_tournament ON tables (tournament, seq);
CREATE INDEX tables_by_status ON tables (status, seq);

CREATE TABLE tournaments (
    id          uuid PRIMARY KEY,
    seq         bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    name        text NOT NULL,
    game        text NOT NULL,
    options     jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One document per key and projection (a table's score sheet, a tournament's
-- standings), written in the same transaction as the projection's checkpoint.
CREATE TABLE read_models (
    projection  text NOT NULL,
    key         text NOT NULL,
    doc         jsonb NOT NULL,
    position    bigint NOT NULL,
    PRIMARY KEY (projection, key)
);
