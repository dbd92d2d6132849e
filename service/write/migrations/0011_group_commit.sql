-- Group commit (service/write/store.py): the commits a process's concurrent commands make
-- travel together, as one JSON document, and are applied by one call in one transaction,
-- so a batch costs one round trip, one statement to prepare and one WAL flush instead of
-- one of each per command.
--
-- Each commit is applied exactly as a single append always was — the snapshot row moves
-- first (inserted for a new table, else updated only from the expected version), then its
-- events, seeds, seat tokens and idempotency record — inside a block of its own: a stale
-- expected version, or any unique key already taken (an event's version, an idempotency
-- key), undoes that commit alone and leaves the others of the batch in place. The answer
-- is the positions (from 0) of the commits that were applied.
--
-- Byte strings travel in base64; instants as RFC 3339 text with their offset.

CREATE FUNCTION append_commits(batch jsonb) RETURNS SETOF integer
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
                                    state, computer_turn, deadline, created_at, updated_at)
                VALUES (tid, m ->> 'game', m ->> 'status', m ->> 'tournament',
                        ARRAY(SELECT jsonb_array_elements_text(m -> 'players')),
                        (m ->> 'version')::integer, decode(m ->> 'hash', 'base64'),
                        decode(m ->> 'state', 'base64'), (m ->> 'computer_turn')::boolean,
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
                       updated_at = (m ->> 'at')::timestamptz
                 WHERE id = tid AND version = (m ->> 'expected')::integer;
                CONTINUE WHEN NOT FOUND;  -- stale: another append got there first
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
