-- A Scan's own database: its history of the DSO party's updates, the DSO
-- party's contracts and the ACS snapshots taken of them.
--
-- Times are BIGINT microseconds since the Unix epoch. Text keys are
-- COLLATE "C" so that they sort bytewise, as on SQLite: the order of
-- snapshot rows and import updates is the same on both. Import updates (the
-- ACS re-import of a hard migration) have no record time: they are stored
-- with the minimum, -9223372036854775808, so that they sort first within
-- their migration and fall inside every snapshot of it. Updates and
-- contracts are blobs made by ledger.EncodeTransaction and
-- ledger.EncodeContract, next to the columns the queries filter and order
-- on.

-- Where ingestion stands: one row. started is 0 until the first Ingest,
-- which also fixes the backfilling state.
CREATE TABLE ingestion (
    id                      INT PRIMARY KEY CHECK (id = 1),
    started                 BOOLEAN NOT NULL,
    ledger_offset           BIGINT NOT NULL,
    watermark               BIGINT NOT NULL,
    migration_id            BIGINT NOT NULL,
    complete                BOOLEAN NOT NULL,
    import_updates_complete BOOLEAN NOT NULL
);
INSERT INTO ingestion VALUES (1, false, 0, 0, 0, false, false);

-- The history. created and archived are JSON arrays of the contract ids of
-- the update's Created and Archived (NULL when empty): the contracts
-- themselves are in the body.
CREATE TABLE updates (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    update_id     TEXT COLLATE "C" NOT NULL UNIQUE,
    migration_id  BIGINT NOT NULL,
    record_time   BIGINT NOT NULL,
    synchronizer  TEXT COLLATE "C" NOT NULL,
    ledger_offset BIGINT NOT NULL,
    is_import     BOOLEAN NOT NULL,
    created       TEXT,
    archived      TEXT,
    body          BYTEA NOT NULL
);
-- History pages: a range of (migration_id, record_time), in order (id
-- breaks ties between import updates).
CREATE INDEX updates_history ON updates (migration_id, record_time, synchronizer, id);
-- UpdatesBefore: one synchronizer of one migration, newest first.
CREATE INDEX updates_before ON updates (migration_id, synchronizer, record_time, id);
-- ImportUpdates: a migration's import updates by update id.
CREATE INDEX updates_import ON updates (migration_id, update_id) WHERE is_import;

-- Migrations' summaries, kept up to date by Ingest so that reading them
-- does not aggregate the history.
CREATE TABLE migrations (
    migration_id          BIGINT PRIMARY KEY,
    last_import_update_id TEXT COLLATE "C"
);
CREATE TABLE record_time_ranges (
    migration_id    BIGINT NOT NULL,
    synchronizer    TEXT COLLATE "C" NOT NULL,
    min_record_time BIGINT NOT NULL,
    max_record_time BIGINT NOT NULL,
    PRIMARY KEY (migration_id, synchronizer)
);

-- Interned names: the snapshot tables, which get a row per contract (and
-- per stakeholder) with every snapshot, hold these small ids.
CREATE TABLE parties (
    id    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    party TEXT COLLATE "C" NOT NULL UNIQUE
);
CREATE TABLE templates (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    template_key TEXT COLLATE "C" NOT NULL UNIQUE -- package_name:module:entity
);

-- The contracts the DSO party is a stakeholder of. seq is the creation
-- order. created_* is the position of the creating update, archived_* that
-- of the archiving one (NULL: active). The body is the last column so that
-- walks that only filter never read it.
CREATE TABLE contracts (
    seq                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    contract_id          TEXT COLLATE "C" NOT NULL UNIQUE,
    template_id          BIGINT NOT NULL REFERENCES templates (id),
    created_at           BIGINT NOT NULL,
    created_migration    BIGINT NOT NULL,
    created_record_time  BIGINT NOT NULL,
    archived_migration   BIGINT,
    archived_record_time BIGINT,
    imported             BOOLEAN NOT NULL,
    body                 BYTEA NOT NULL
);
CREATE INDEX contracts_active ON contracts (seq) WHERE archived_record_time IS NULL;
CREATE INDEX contracts_active_template ON contracts (template_id, seq) WHERE archived_record_time IS NULL;
-- The snapshot build's keyset walk, in snapshot row order. It includes
-- every column the walk reads, so that a build can read the index alone
-- (an Index Only Scan), in order, instead of the table at random.
CREATE INDEX contracts_created ON contracts (created_at, contract_id)
    INCLUDE (created_migration, created_record_time, archived_migration, archived_record_time, template_id);

CREATE TABLE contract_stakeholders (
    seq      BIGINT NOT NULL REFERENCES contracts (seq),
    party_id BIGINT NOT NULL REFERENCES parties (id),
    PRIMARY KEY (seq, party_id)
);

-- ACS snapshots. Readers only see complete ones; an incomplete one is a
-- build a crash interrupted, discarded by the next build. Its rows are
-- FirstRow..LastRow of acs_snapshot_rows, contiguous because builds run
-- one at a time.
CREATE TABLE acs_snapshots (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    migration_id BIGINT NOT NULL,
    record_time  BIGINT NOT NULL,
    first_row    BIGINT NOT NULL,
    last_row     BIGINT NOT NULL,
    complete     BOOLEAN NOT NULL,
    UNIQUE (migration_id, record_time)
);

-- A snapshot's contracts, numbered in (created_at, contract_id) order.
-- Row ids are global, so a range of them is one snapshot and every index
-- below needs no snapshot column.
CREATE TABLE acs_snapshot_rows (
    row_id       BIGINT PRIMARY KEY,
    snapshot_id  BIGINT NOT NULL,
    contract_seq BIGINT NOT NULL,
    template_id  BIGINT NOT NULL
);
CREATE INDEX acs_snapshot_rows_template ON acs_snapshot_rows (template_id, row_id);

-- One row per stakeholder of each snapshot row, for the party filter.
CREATE TABLE acs_snapshot_parties (
    party_id    BIGINT NOT NULL,
    row_id      BIGINT NOT NULL,
    template_id BIGINT NOT NULL,
    PRIMARY KEY (party_id, row_id)
);
CREATE INDEX acs_snapshot_parties_template ON acs_snapshot_parties (party_id, template_id, row_id);
