-- Command completions and the deduplication index (ledger.Completion). The
-- statements that read and write them are shared by both adapters
-- (internal/store/completions.go); the SQLite adapter has the same tables
-- under the same version.

-- One row per completion in a participant's completion stream. The offset
-- is the participant's: an accepted completion shares its transaction's
-- offset, a rejected one has an offset of its own that no update has. A
-- request without a party filter is a range scan of the primary key (the
-- ledger API's requests without parties name no user either). body is
-- ledger.EncodeCompletion's blob.
CREATE TABLE completions (
    participant   BIGINT NOT NULL REFERENCES participants (ordinal),
    ledger_offset BIGINT NOT NULL,
    user_id       TEXT NOT NULL,
    body          BYTEA NOT NULL,
    PRIMARY KEY (participant, ledger_offset)
);

-- A completion under each of its actAs parties, for requests that name
-- parties: one range scan per party, of the primary key or, for a request
-- that also names a user, of completion_parties_user, merged in offset
-- order.
CREATE TABLE completion_parties (
    participant   BIGINT NOT NULL REFERENCES participants (ordinal),
    party         TEXT NOT NULL,
    ledger_offset BIGINT NOT NULL,
    user_id       TEXT NOT NULL,
    PRIMARY KEY (participant, party, ledger_offset)
);
CREATE INDEX completion_parties_user ON completion_parties (participant, user_id, party, ledger_offset);

-- The latest accepted completion of each change (user id, command id,
-- actAs; change_id is ledger.NewChangeID's digest of them) on a
-- participant: what deduplication compares a new submission with. Written
-- and read inside the write transaction that commits the submission, under
-- the schema's write lock, so that processes sharing the schema agree.
CREATE TABLE deduplication (
    participant   BIGINT NOT NULL REFERENCES participants (ordinal),
    change_id     TEXT NOT NULL,
    ledger_offset BIGINT NOT NULL,
    record_time   BIGINT NOT NULL,
    submission_id TEXT NOT NULL,
    PRIMARY KEY (participant, change_id)
);
