-- Duplicate deals: operator decks (and a first dealer) held by a tournament, used by every
-- table the operator opens in it unless the table brings its own. Never served publicly.

ALTER TABLE tournaments ADD COLUMN deals jsonb;
ALTER TABLE tournaments ADD COLUMN first_dealer integer;
