-- Snapshots are rewritten by every command and are msgpack already: skip compressing
-- them (STORAGE EXTERNAL) and spare Postgres that CPU on the hot path.
ALTER TABLE tables ALTER COLUMN state SET STORAGE EXTERNAL;
