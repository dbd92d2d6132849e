-- A table's decks (operator-dealt tables and tournaments) never change once it is opened
-- and were most of its snapshot's bytes: they move to a column of their own, written by
-- the table's first commit (the member's `decks`) and never by the updates after it, which
-- leave the stored value where it is. A snapshot written before this keeps its decks in
-- `state` and has none here (projections.table_state.with_decks reads both); the first
-- commit to it after this sends them, and they move out.
--
-- During a rolling update, processes of the code before this still run: they read `state`
-- alone, and would play a table whose decks are stored apart without them (its next deal
-- drawn from a fresh seed instead of the supplied deck). Their members lack `decks_apart`,
-- and such a member may update only a table whose decks are not stored apart: for any
-- other it is stale, and that process's command ends in a conflict, which its client
-- retries (on a process of the new code, once the update is through).
ALTER TABLE tables ADD COLUMN decks bytea;
ALTER TABLE tables ALTER COLUMN decks SET STORAGE EXTERNAL;

-- As in 0011_group_commit, with `decks` written when sent, and the guard above.
CREATE OR REPLACE FUNCTION append_commits(batch jsonb) RETURNS SETOF integer
LANGUAGE plpgsql AS $$
DECLARE
    m jsonb;    -- the commit
    tid uuid;   -- its table
BEGIN
    FOR i IN 0 .. jsonb_array_length(batch) - 1 LOOP
        m := batch -> i;
        tid := (m ->> 'table')::uuid;
        BEGIN
            IF (m ->> 'expected')::integer = 0 THEN
                INSERT INTO tables (id, game, status, tournament, players, version, last_hash,
                                    state, decks, computer_turn, deadline, created_at,
                                    updated_at)
                VALUES (tid, m ->> 'game', m ->> 'status', m ->> 'tournament',
                        ARRAY(SELECT jsonb_array_elements_text(m -> 'players')),
                        (m ->> 'version')::integer, decode(m ->> 'hash', 'base64'),
                        decode(m ->> 'state', 'base64'), decode(m ->> 'decks', 'base64'),
                        (m ->> 'computer_turn')::boolean,
                        (m ->> 'deadline')::timestamptz, (m ->> 'at')::timestamptz,
                        (m ->> 'at')::timestamptz);
            ELSE
                UPDATE tables SET status = m ->> 'status',
                       players = ARRAY(SELECT jsonb_array_elements_text(m -> 'players')),
                       version = (m ->> 'version')::integer,
                       last_hash = decode(m ->> 'hash', 'base64'),
                       state = decode(m ->> 'state', 'base64'),
                       computer_turn = (m ->> 'computer_turn')::boolean,
                       deadline = (m ->> 'deadline')::timestamptz,
                       updated_at = (m ->> 'at')::timestamptz,
                       -- Not sent: the stored decks stay as they are, their bytes untouched.
                       decks = COALESCE(decode(m ->> 'decks', 'base64'), decks)
                 WHERE id = tid AND version = (m ->> 'expected')::integer
                   AND (m ? 'decks_apart' OR decks IS NULL);
                -- Stale: another append got there first (or, above, an older writer).
                CONTINUE WHEN NOT FOUND;
            END IF;
            INSERT INTO events (table_id, version, type, data, actor, command, recorded_at, hash)
            SELECT tid, x.v, x.t, x.d, x.a, x.c, (m ->> 'at')::timestamptz, decode(x.h, 'base64')
              FROM jsonb_to_recordset(m -> 'events')
                   AS x(v integer, t text, d jsonb, a text, c jsonb, h text);
            -- Most commands draw no seed, seat nobody and send no key: those commits
            -- leave these members out, and the statements are not run at all.
            IF m ? 'seeds' THEN
                INSERT INTO shuffle_secrets (table_id, shuffle, seed)
                SELECT tid, x.n, decode(x.s, 'base64')
                  FROM jsonb_to_recordset(m -> 'seeds') AS x(n integer, s text);
            END IF;
            IF m ? 'tokens' THEN
                INSERT INTO seat_tokens (token_hash, table_id, seat, epoch)
                SELECT decode(x.d, 'base64'), tid, x.n, x.e
                  FROM jsonb_to_recordset(m -> 'tokens') AS x(d text, n integer, e integer);
            END IF;
            IF m ? 'idempotency' THEN
                INSERT INTO idempotency_keys
                       (table_id, actor, key, request_hash, status, body, etag, created_at)
                SELECT tid, x.actor, x.key, decode(x.request_hash, 'base64'), x.status,
                       decode(x.body, 'base64'), x.etag, (m ->> 'at')::timestamptz
                  FROM jsonb_to_record(m -> 'idempotency')
                       AS x(actor text, key text, request_hash text, status integer,
                            body text, etag text);
            END IF;
            RETURN NEXT i;
        EXCEPTION WHEN unique_violation THEN
            NULL;  -- stale (or a key already used): nothing of this commit stays
        END;
    END LOOP;
END $$;
