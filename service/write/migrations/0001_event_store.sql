-- The event store: one stream per table, append-only, hash-chained (DESIGN 4).

CREATE TABLE events (
    -- Consumers read in (tx, position) order and never past the oldest running
    -- transaction (see service/store.py: why a sequence alone would skip late commits).
    position    bigint GENERATED ALWAYS AS IDENTITY,
    tx          xid8 NOT NULL DEFAULT pg_current_xact_id(),
    table_id    uuid NOT NULL,
    version     integer NOT NULL CHECK (version >= 1),
    type        text NOT NULL,
    data        jsonb NOT NULL,
    actor       text NOT NULL,
    command     jsonb,
    recorded_at timestamptz NOT NULL,
    hash        bytea NOT NULL CHECK (length(hash) = 32),
    -- The primary key alone enforces optimistic concurrency: a stale append collides.
    PRIMARY KEY (table_id, version)
);
CREATE UNIQUE INDEX events_position_key ON events (position);
CREATE INDEX events_global_order ON events (tx, position);

CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only: % refused', TG_OP;
END $$;
CREATE TRIGGER events_append_only
    BEFORE UPDATE OR DELETE OR TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();

-- Inline projection: the table snapshot the command handler loads (DESIGN 8).
CREATE TABLE tables (
    id          uuid PRIMARY KEY,
    seq         bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    game        text NOT NULL,
    status      text NOT NULL,
    tournament  text,
    version     integer NOT NULL,
    last_hash   bytea NOT NULL,
    state       bytea NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX tables_listing ON tables (game, status, seq);

-- Bearer tokens of seated players, stored as SHA-256 digests only.
CREATE TABLE seat_tokens (
    token_hash  bytea PRIMARY KEY,
    table_id    uuid NOT NULL REFERENCES tables (id),
    seat        integer NOT NULL,
    UNIQUE (table_id, seat)
);

-- Shuffle seeds until the events reveal them; NULL seed: an operator-supplied deck.
CREATE TABLE shuffle_secrets (
    table_id    uuid NOT NULL REFERENCES tables (id),
    shuffle     integer NOT NULL,
    seed        bytea,
    PRIMARY KEY (table_id, shuffle)
);

-- Idempotency records, written in the same transaction as the events they answer for.
CREATE TABLE idempotency_keys (
    table_id     uuid NOT NULL,
    actor        text NOT NULL,
    key          text NOT NULL,
    request_hash bytea NOT NULL,
    status       integer NOT NULL,
    body         bytea NOT NULL,
    etag         text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, actor, key)
);
