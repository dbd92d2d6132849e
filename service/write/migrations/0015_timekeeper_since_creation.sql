-- A database no timekeeper has ever run counts its creation (or this upgrade) as the last
-- time one was alive. Without a heartbeat, a move past its deadline was refused 409
-- `clock-expired` though nothing fired the clock, where an outage answers 503
-- `clocks-recovering`; and the first timekeeper had no moment to give the time back from.
-- A database a timekeeper has run keeps its heartbeat as it is.
INSERT INTO timekeeper_heartbeat (id, alive_at) VALUES (1, now()) ON CONFLICT (id) DO NOTHING;
