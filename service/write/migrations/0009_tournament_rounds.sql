-- Tournaments in rounds (DESIGN 14). A tournament is its own stream, kept like a table's:
-- append-only, one row per event, versioned per stream (the primary key alone refuses a
-- stale append) and hash-chained. Tournament streams live beside the table streams rather
-- than in ``events`` so that the consumers of table events (relay, projector, lag) never
-- meet an event that is not a table's.

CREATE TABLE tournament_events (
    position      bigint GENERATED ALWAYS AS IDENTITY,
    tournament_id uuid NOT NULL REFERENCES tournaments (id),
    version       integer NOT NULL CHECK (version >= 1),
    type          text NOT NULL,
    data          jsonb NOT NULL,
    actor         text NOT NULL,
    command       jsonb,
    recorded_at   timestamptz NOT NULL,
    hash          bytea NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (tournament_id, version)
);
CREATE TRIGGER tournament_events_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON tournament_events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- The listing columns, and the secrets: the pairing seed (revealed by the stream when the
-- tournament finishes) and the key its seat tokens are derived from. Never served.
ALTER TABLE tournaments ADD COLUMN format text NOT NULL DEFAULT 'open';
ALTER TABLE tournaments ADD COLUMN status text NOT NULL DEFAULT 'open';
ALTER TABLE tournaments ADD COLUMN version integer NOT NULL DEFAULT 0;
ALTER TABLE tournaments ADD COLUMN last_hash bytea;
ALTER TABLE tournaments ADD COLUMN director_hash bytea;
ALTER TABLE tournaments ADD COLUMN seed bytea;
ALTER TABLE tournaments ADD COLUMN seat_key bytea;
CREATE INDEX tournaments_listing ON tournaments (status, game, format, seq);

-- Entry tokens, as SHA-256 digests only.
CREATE TABLE entry_tokens (
    token_hash    bytea PRIMARY KEY,
    tournament_id uuid NOT NULL REFERENCES tournaments (id),
    entry         text NOT NULL
);

-- The tables each round opened, written with the round's ``round_paired`` event: a
-- table not yet created is opened by whoever finds it missing, and an ended table not
-- yet ``scored`` is recorded in its tournament's stream.
CREATE TABLE round_tables (
    table_id      uuid PRIMARY KEY,
    tournament_id uuid NOT NULL REFERENCES tournaments (id),
    round         integer NOT NULL,
    scored        boolean NOT NULL DEFAULT false
);
CREATE INDEX round_tables_unscored ON round_tables (tournament_id) WHERE NOT scored;
