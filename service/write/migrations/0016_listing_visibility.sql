-- The table listing shows a spectator only the tables open to spectators: for each table
-- of a tournament it looks the tournament up by the id the table holds as text, and,
-- for a finished event's ended table, whether the event still has a table in play. On a
-- large store both lookups scanned (every tournament for each listed table, or every
-- table of the event), and past a page of about a hundred the planner turned the check
-- into an anti join over the whole store: 0.4 s for one page, which a client within its
-- rate budget could ask for until commands timed out for everyone. Both lookups get an
-- index of their own.
CREATE INDEX tournaments_by_text_id ON tournaments ((id::text));
CREATE INDEX tables_unended_by_tournament ON tables (tournament)
    WHERE status NOT IN ('finished', 'aborted', 'expired');
