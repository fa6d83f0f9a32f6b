-- A validator's own database: the cursor of its participant's stream and
-- the transaction log built from it (the direct transfer offers its users
-- send and receive).
--
-- Times are INTEGER microseconds since the Unix epoch.

-- Where ingestion stands: one row. last_seq numbers the transfer events
-- recorded so far; Ingest moves both in its compare-and-swap.
CREATE TABLE ingestion (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    ledger_offset INTEGER NOT NULL,
    last_seq      INTEGER NOT NULL
);
INSERT INTO ingestion VALUES (1, 0, 0);

-- The state of each transfer: its latest event, one row per (sender,
-- tracking id), overwritten by each later event. seq is the number of that
-- event in recording order, which decides "latest" between transfers of
-- different senders sharing a tracking id. contract_id, failure_kind and
-- reason are '' when the event has none.
CREATE TABLE transfers (
    sender       TEXT NOT NULL,
    tracking_id  TEXT NOT NULL,
    receiver     TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    state        TEXT NOT NULL,
    update_id    TEXT NOT NULL,
    contract_id  TEXT NOT NULL,
    failure_kind TEXT NOT NULL,
    reason       TEXT NOT NULL,
    record_time  INTEGER NOT NULL,
    PRIMARY KEY (sender, tracking_id)
) WITHOUT ROWID;
-- Transfer by the receiver: the latest of its senders' transfers with an id.
CREATE INDEX transfers_receiver ON transfers (receiver, tracking_id, seq);
