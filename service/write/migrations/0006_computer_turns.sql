-- Computer players (DESIGN 10): whether the table waits on a seat the computer plays,
-- kept by the inline projection so the computer worker finds its turns with one index.

ALTER TABLE tables ADD COLUMN computer_turn boolean NOT NULL DEFAULT false;
CREATE INDEX tables_computer_turn ON tables (updated_at) WHERE computer_turn;
