-- Checkpoints of the consumers that tail the global order (relay, projections).
CREATE TABLE consumer_checkpoints (
    name        text PRIMARY KEY,
    tx          bigint NOT NULL DEFAULT 0,
    position    bigint NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
