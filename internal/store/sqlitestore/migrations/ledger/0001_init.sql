-- The network engine's state: the ordered transactions, the active contract
-- set, each participant's update stream, topology and users.
--
-- Times are INTEGER microseconds since the Unix epoch (Daml's resolution),
-- so that they order and compare the same way on SQLite and PostgreSQL.
-- Transactions and contracts are stored as blobs made by
-- ledger.EncodeTransaction and ledger.EncodeContract, next to the columns
-- the queries filter and order on.

-- Network settings (seed, secrets' names, feature switches).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- The tip of the network: one row, updated by every append, read inside the
-- write transaction so that allocation is serial.
CREATE TABLE head (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    migration_id     INTEGER NOT NULL,
    sequence         INTEGER NOT NULL,
    last_record_time INTEGER NOT NULL,
    clock_offset     INTEGER NOT NULL
);
INSERT INTO head (id, migration_id, sequence, last_record_time, clock_offset) VALUES (1, 0, 0, 0, 0);

-- ordinal is the creation order and the compact key participant_updates
-- uses instead of repeating the long participant id on every row.
CREATE TABLE participants (
    ordinal     INTEGER PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    last_offset INTEGER NOT NULL DEFAULT 0,
    -- Offsets up to and including pruned_offset were pruned from the
    -- participant's stream (0: nothing pruned). Never above last_offset.
    pruned_offset INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE synchronizers (
    ordinal      INTEGER PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    alias        TEXT NOT NULL,
    migration_id INTEGER NOT NULL
);

CREATE TABLE hostings (
    party           TEXT NOT NULL,
    participant_id  TEXT NOT NULL REFERENCES participants (id),
    synchronizer_id TEXT NOT NULL REFERENCES synchronizers (id),
    permission      TEXT NOT NULL,
    PRIMARY KEY (party, participant_id, synchronizer_id)
) WITHOUT ROWID;

CREATE TABLE users (
    participant_id   TEXT NOT NULL REFERENCES participants (id),
    id               TEXT NOT NULL,
    primary_party    TEXT NOT NULL,
    deactivated      INTEGER NOT NULL,
    annotations      TEXT NOT NULL, -- JSON object
    resource_version INTEGER NOT NULL,
    PRIMARY KEY (participant_id, id)
) WITHOUT ROWID;

-- Rights keep the order they were granted in (ordinal).
CREATE TABLE user_rights (
    participant_id TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    ordinal        INTEGER NOT NULL,
    kind           TEXT NOT NULL,
    party          TEXT NOT NULL, -- '' for rights that name no party
    PRIMARY KEY (participant_id, user_id, ordinal),
    FOREIGN KEY (participant_id, user_id) REFERENCES users (participant_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

-- sequence (the head's count after the append: the network's total order)
-- is the rowid, so appends go to the end of the table's B-tree. (migration_id, record_time)
-- is unique: record times are strictly increasing within a migration.
CREATE TABLE transactions (
    sequence        INTEGER PRIMARY KEY,
    update_id       TEXT NOT NULL UNIQUE,
    migration_id    INTEGER NOT NULL,
    record_time     INTEGER NOT NULL,
    effective_at    INTEGER NOT NULL,
    synchronizer_id TEXT NOT NULL,
    body            BLOB NOT NULL,
    UNIQUE (migration_id, record_time)
);

-- One row per (participant, offset). Updates() is a range scan of the
-- primary key in either direction; the join to transactions is by rowid.
-- Pruning a participant deletes its rows up to its pruned offset; the
-- transactions stay, for the other participants' streams and lookups by
-- update id.
CREATE TABLE participant_updates (
    participant   INTEGER NOT NULL REFERENCES participants (ordinal),
    ledger_offset INTEGER NOT NULL,
    sequence      INTEGER NOT NULL REFERENCES transactions (sequence),
    migration_id  INTEGER NOT NULL,
    PRIMARY KEY (participant, ledger_offset)
) WITHOUT ROWID;

-- The per-party index of participant_updates, for UpdateQuery.Parties: one
-- row per informee of the update (a party that witnesses some node) in the
-- participant's stream. A party filter is a range scan of (participant,
-- party, ledger_offset) per party. The append cannot see hostings, so it
-- indexes every informee for each participant the update goes to; rows for
-- parties the participant does not host are never asked for. Pruning
-- deletes the rows with the participant's stream entries.
CREATE TABLE participant_update_parties (
    participant   INTEGER NOT NULL REFERENCES participants (ordinal),
    party         TEXT NOT NULL,
    ledger_offset INTEGER NOT NULL,
    PRIMARY KEY (participant, party, ledger_offset)
) WITHOUT ROWID;

-- seq is the creation order (the rowid) and the keyset of ActiveContracts.
-- Archived contracts stay, so Contract() can answer for them; the partial
-- indexes cover only active ones, so listing the ACS costs the same however
-- much history there is.
CREATE TABLE contracts (
    seq                INTEGER PRIMARY KEY,
    contract_id        TEXT NOT NULL UNIQUE,
    package_name       TEXT NOT NULL,
    module             TEXT NOT NULL,
    entity             TEXT NOT NULL,
    migration_id       INTEGER NOT NULL,
    created_update_id  TEXT NOT NULL,
    archived_update_id TEXT,
    body               BLOB NOT NULL
);
CREATE INDEX contracts_active ON contracts (seq) WHERE archived_update_id IS NULL;
CREATE INDEX contracts_active_template ON contracts (package_name, module, entity, seq)
    WHERE archived_update_id IS NULL;

-- Stakeholders of active contracts only: rows are deleted when the contract
-- is archived, so the Stakeholder filter walks (party, seq) over the party's
-- active contracts and nothing else. The template is copied from contracts
-- so that a stakeholder and a template are one range of
-- contract_stakeholders_template, (party, template, seq), in seq order: the
-- DSO is a stakeholder of nearly every contract, and filtering its whole
-- (party, seq) range by template costs seconds when the template is rare.
CREATE TABLE contract_stakeholders (
    party        TEXT NOT NULL,
    package_name TEXT NOT NULL,
    module       TEXT NOT NULL,
    entity       TEXT NOT NULL,
    seq          INTEGER NOT NULL REFERENCES contracts (seq),
    PRIMARY KEY (party, seq)
) WITHOUT ROWID;
CREATE INDEX contract_stakeholders_template ON contract_stakeholders (party, package_name, module, entity, seq);
CREATE INDEX contract_stakeholders_seq ON contract_stakeholders (seq);
