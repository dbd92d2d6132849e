-- Retention (DESIGN 12): idempotency records expire, tables never filled expire.
-- idempotency_keys.created_at exists since 0001 (the command's commit now writes it with
-- the instant of its events); the sweeper deletes the oldest records first, in batches,
-- and reads the tables still waiting for players oldest first, a page at a time.

CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
CREATE INDEX tables_waiting ON tables (created_at, id) WHERE status = 'waiting';
