-- A validator's own database: the cursor of its participant's stream and
-- the transaction log built from it (the direct transfer offers its users
-- send and receive).
--
-- Times are BIGINT microseconds since the Unix epoch. Text keys are
-- COLLATE "C", as in the other schemas.

-- Where ingestion stands: one row. last_seq numbers the transfer events
-- recorded so far; Ingest moves both in its compare-and-swap.
CREATE TABLE ingestion (
    id            INT PRIMARY KEY CHECK (id = 1),
    ledger_offset BIGINT NOT NULL,
    last_seq      BIGINT NOT NULL
);
INSERT INTO ingestion VALUES (1, 0, 0);

-- The state of each transfer: its latest event, one row per (sender,
-- tracking id), overwritten by each later event. seq is the number of that
-- event in recording order, which decides "latest" between transfers of
-- different senders sharing a tracking id. contract_id, failure_kind and
-- reason are '' when the event has none.
CREATE TABLE transfers (
    sender       TEXT COLLATE "C" NOT NULL,
    tracking_id  TEXT COLLATE "C" NOT NULL,
    receiver     TEXT COLLATE "C" NOT NULL,
    seq          BIGINT NOT NULL,
    state        TEXT NOT NULL,
    update_id    TEXT NOT NULL,
    contract_id  TEXT NOT NULL,
    failure_kind TEXT NOT NULL,
    reason       TEXT NOT NULL,
    record_time  BIGINT NOT NULL,
    PRIMARY KEY (sender, tracking_id)
);
-- Transfer by the receiver: the latest of its senders' transfers with an id.
CREATE INDEX transfers_receiver ON transfers (receiver, tracking_id, seq);
