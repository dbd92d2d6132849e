-- The relay publishes tournament events too (DESIGN 14: "published like table events"). It
-- tails ``tournament_events`` the way it tails ``events``: in (tx, position) order and never
-- past the oldest running transaction (service/write/store.py says why a sequence alone
-- would skip late commits). Rows written before this migration all get its transaction id,
-- so they come first, in position order.

ALTER TABLE tournament_events ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX tournament_events_global_order ON tournament_events (tx, position);
