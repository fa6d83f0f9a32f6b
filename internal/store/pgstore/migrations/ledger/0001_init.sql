-- The network engine's state: the ordered transactions, the active contract
-- set, each participant's update stream, topology and users. Same version
-- and same tables as the SQLite adapter's 0001_init.sql.
--
-- Tables are created unqualified: the store sets search_path to its own
-- schema on every connection, so one database can hold several components
-- (and several test schemas) side by side.
--
-- Times are BIGINT microseconds since the Unix epoch (Daml's resolution).
-- Transactions and contracts are stored as BYTEA made by
-- ledger.EncodeTransaction and ledger.EncodeContract, next to the columns
-- the queries filter and order on.

-- Network settings (seed, secrets' names, feature switches).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The tip of the network: one row, updated by every append. Appends are
-- serialised by the store's advisory lock, taken before this row is read.
CREATE TABLE head (
    id               INT PRIMARY KEY CHECK (id = 1),
    migration_id     BIGINT NOT NULL,
    sequence         BIGINT NOT NULL,
    last_record_time BIGINT NOT NULL,
    clock_offset     BIGINT NOT NULL
);
INSERT INTO head (id, migration_id, sequence, last_record_time, clock_offset) VALUES (1, 0, 0, 0, 0);

-- ordinal is the creation order and the compact key participant_updates
-- uses instead of repeating the long participant id on every row.
CREATE TABLE participants (
    ordinal     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id          TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    last_offset BIGINT NOT NULL DEFAULT 0,
    -- Offsets up to and including pruned_offset were pruned from the
    -- participant's stream (0: nothing pruned). Never above last_offset.
    pruned_offset BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE synchronizers (
    ordinal      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id           TEXT NOT NULL UNIQUE,
    alias        TEXT NOT NULL,
    migration_id BIGINT NOT NULL
);

CREATE TABLE hostings (
    party           TEXT NOT NULL,
    participant_id  TEXT NOT NULL REFERENCES participants (id),
    synchronizer_id TEXT NOT NULL REFERENCES synchronizers (id),
    permission      TEXT NOT NULL,
    PRIMARY KEY (party, participant_id, synchronizer_id)
);

CREATE TABLE users (
    participant_id   TEXT NOT NULL REFERENCES participants (id),
    id               TEXT NOT NULL,
    primary_party    TEXT NOT NULL,
    deactivated      BOOLEAN NOT NULL,
    annotations      TEXT NOT NULL, -- JSON object, opaque to SQL
    resource_version BIGINT NOT NULL,
    PRIMARY KEY (participant_id, id)
);

-- Rights keep the order they were granted in (ordinal).
CREATE TABLE user_rights (
    participant_id TEXT NOT NULL,
    user_id        TEXT NOT NULL,
    ordinal        INT NOT NULL,
    kind           TEXT NOT NULL,
    party          TEXT NOT NULL, -- '' for rights that name no party
    PRIMARY KEY (participant_id, user_id, ordinal),
    FOREIGN KEY (participant_id, user_id) REFERENCES users (participant_id, id) ON DELETE CASCADE
);

-- sequence is the head's count after the append: the total order of the
-- network. (migration_id, record_time) is unique: record times are strictly
-- increasing within a migration.
CREATE TABLE transactions (
    sequence        BIGINT PRIMARY KEY,
    update_id       TEXT NOT NULL UNIQUE,
    migration_id    BIGINT NOT NULL,
    record_time     BIGINT NOT NULL,
    effective_at    BIGINT NOT NULL,
    synchronizer_id TEXT NOT NULL,
    body            BYTEA NOT NULL,
    UNIQUE (migration_id, record_time)
);

-- One row per (participant, offset). Updates() is a range scan of the
-- primary key in either direction, joined to transactions by sequence.
-- Pruning a participant deletes its rows up to its pruned offset; the
-- transactions stay, for the other participants' streams and lookups by
-- update id.
CREATE TABLE participant_updates (
    participant   BIGINT NOT NULL REFERENCES participants (ordinal),
    ledger_offset BIGINT NOT NULL,
    sequence      BIGINT NOT NULL REFERENCES transactions (sequence),
    migration_id  BIGINT NOT NULL,
    PRIMARY KEY (participant, ledger_offset)
);

-- The per-party index of participant_updates, for UpdateQuery.Parties: one
-- row per informee of the update (a party that witnesses some node) in the
-- participant's stream. A party filter is a range scan of (participant,
-- party, ledger_offset) per party. The append cannot see hostings, so it
-- indexes every informee for each participant the update goes to; rows for
-- parties the participant does not host are never asked for. Pruning
-- deletes the rows with the participant's stream entries.
CREATE TABLE participant_update_parties (
    participant   BIGINT NOT NULL REFERENCES participants (ordinal),
    party         TEXT NOT NULL,
    ledger_offset BIGINT NOT NULL,
    PRIMARY KEY (participant, party, ledger_offset)
);

-- seq is the creation order and the keyset of ActiveContracts. Archived
-- contracts stay, so Contract() can answer for them; the partial indexes
-- cover only active ones, so listing the ACS costs the same however much
-- history there is.
CREATE TABLE contracts (
    seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contract_id        TEXT NOT NULL UNIQUE,
    package_name       TEXT NOT NULL,
    module             TEXT NOT NULL,
    entity             TEXT NOT NULL,
    migration_id       BIGINT NOT NULL,
    created_update_id  TEXT NOT NULL,
    archived_update_id TEXT,
    body               BYTEA NOT NULL
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
    seq          BIGINT NOT NULL REFERENCES contracts (seq),
    PRIMARY KEY (party, seq)
);
CREATE INDEX contract_stakeholders_template ON contract_stakeholders (party, package_name, module, entity, seq);
CREATE INDEX contract_stakeholders_seq ON contract_stakeholders (seq);
