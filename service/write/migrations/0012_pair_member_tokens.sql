-- Each player of a partnership entry gets a token of their own: one person's token must
-- never open the partner's hand. ``member`` is the player's place in the entry's names
-- (0 or 1), so ``/me`` answers with that player's seat alone; NULL is a token for the
-- whole entry (every single entry, and pair entries made before this migration, whose
-- one token still reaches both seats so that no pair already entered is stranded).
ALTER TABLE entry_tokens ADD COLUMN member smallint CHECK (member IN (0, 1));
