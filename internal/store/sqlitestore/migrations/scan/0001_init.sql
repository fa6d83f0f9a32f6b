-- A Scan's own database: its history of the DSO party's updates, the DSO
-- party's contracts and the ACS snapshots taken of them.
--
-- Times are INTEGER microseconds since the Unix epoch. Import updates (the
-- ACS re-import of a hard migration) have no record time: they are stored
-- with the minimum, -9223372036854775808, so that they sort first within
-- their migration and fall inside every snapshot of it. Updates and
-- contracts are blobs made by ledger.EncodeTransaction and
-- ledger.EncodeContract, next to the columns the queries filter and order
-- on.

-- Where ingestion stands: one row. started is 0 until the first Ingest,
-- which also fixes the backfilling state.
CREATE TABLE ingestion (
    id                      INTEGER PRIMARY KEY CHECK (id = 1),
    started                 INTEGER NOT NULL,
    ledger_offset           INTEGER NOT NULL,
    watermark               INTEGER NOT NULL,
    migration_id            INTEGER NOT NULL,
    complete                INTEGER NOT NULL,
    import_updates_complete INTEGER NOT NULL
);
INSERT INTO ingestion VALUES (1, 0, 0, 0, 0, 0, 0);

-- The history. created and archived are JSON arrays of the contract ids of
-- the update's Created and Archived (NULL when empty): the contracts
-- themselves are in the body.
CREATE TABLE updates (
    id            INTEGER PRIMARY KEY,
    update_id     TEXT NOT NULL UNIQUE,
    migration_id  INTEGER NOT NULL,
    record_time   INTEGER NOT NULL,
    synchronizer  TEXT NOT NULL,
    ledger_offset INTEGER NOT NULL,
    is_import     INTEGER NOT NULL,
    created       TEXT,
    archived      TEXT,
    body          BLOB NOT NULL
);
-- History pages: a range of (migration_id, record_time), in order (the
-- rowid, appended to every index, breaks ties between import updates).
CREATE INDEX updates_history ON updates (migration_id, record_time, synchronizer);
-- UpdatesBefore: one synchronizer of one migration, newest first.
CREATE INDEX updates_before ON updates (migration_id, synchronizer, record_time);
-- ImportUpdates: a migration's import updates by update id.
CREATE INDEX updates_import ON updates (migration_id, update_id) WHERE is_import = 1;

-- Migrations' summaries, kept up to date by Ingest so that reading them
-- does not aggregate the history.
CREATE TABLE migrations (
    migration_id          INTEGER PRIMARY KEY,
    last_import_update_id TEXT
);
CREATE TABLE record_time_ranges (
    migration_id    INTEGER NOT NULL,
    synchronizer    TEXT NOT NULL,
    min_record_time INTEGER NOT NULL,
    max_record_time INTEGER NOT NULL,
    PRIMARY KEY (migration_id, synchronizer)
) WITHOUT ROWID;

-- Interned names: the snapshot tables, which get a row per contract (and
-- per stakeholder) with every snapshot, hold these small ids.
CREATE TABLE parties (
    id    INTEGER PRIMARY KEY,
    party TEXT NOT NULL UNIQUE
);
CREATE TABLE templates (
    id           INTEGER PRIMARY KEY,
    template_key TEXT NOT NULL UNIQUE -- package_name:module:entity
);

-- The contracts the DSO party is a stakeholder of. seq is the creation
-- order. created_* is the position of the creating update, archived_* that
-- of the archiving one (NULL: active). The body is the last column so that
-- walks that only filter never read it.
CREATE TABLE contracts (
    seq                  INTEGER PRIMARY KEY,
    contract_id          TEXT NOT NULL UNIQUE,
    template_id          INTEGER NOT NULL REFERENCES templates (id),
    created_at           INTEGER NOT NULL,
    created_migration    INTEGER NOT NULL,
    created_record_time  INTEGER NOT NULL,
    archived_migration   INTEGER,
    archived_record_time INTEGER,
    imported             INTEGER NOT NULL,
    body                 BLOB NOT NULL
);
CREATE INDEX contracts_active ON contracts (seq) WHERE archived_record_time IS NULL;
CREATE INDEX contracts_active_template ON contracts (template_id, seq) WHERE archived_record_time IS NULL;
-- The snapshot build's keyset walk, in snapshot row order. It covers
-- every column the walk reads, so a build never touches the table's rows
-- (and their bodies): the index is read in order, the table would be read
-- at random.
CREATE INDEX contracts_created ON contracts (created_at, contract_id,
    created_migration, created_record_time, archived_migration, archived_record_time, template_id);

CREATE TABLE contract_stakeholders (
    seq      INTEGER NOT NULL REFERENCES contracts (seq),
    party_id INTEGER NOT NULL REFERENCES parties (id),
    PRIMARY KEY (seq, party_id)
) WITHOUT ROWID;

-- ACS snapshots. Readers only see complete ones; an incomplete one is a
-- build a crash interrupted, discarded by the next build. Its rows are
-- FirstRow..LastRow of acs_snapshot_rows, contiguous because builds run
-- one at a time.
CREATE TABLE acs_snapshots (
    id           INTEGER PRIMARY KEY,
    migration_id INTEGER NOT NULL,
    record_time  INTEGER NOT NULL,
    first_row    INTEGER NOT NULL,
    last_row     INTEGER NOT NULL,
    complete     INTEGER NOT NULL,
    UNIQUE (migration_id, record_time)
);

-- A snapshot's contracts, numbered in (created_at, contract_id) order.
-- Row ids are global, so a range of them is one snapshot and every index
-- below needs no snapshot column.
CREATE TABLE acs_snapshot_rows (
    row_id       INTEGER PRIMARY KEY,
    snapshot_id  INTEGER NOT NULL,
    contract_seq INTEGER NOT NULL,
    template_id  INTEGER NOT NULL
);
CREATE INDEX acs_snapshot_rows_template ON acs_snapshot_rows (template_id, row_id);

-- One row per stakeholder of each snapshot row, for the party filter.
CREATE TABLE acs_snapshot_parties (
    party_id    INTEGER NOT NULL,
    row_id      INTEGER NOT NULL,
    template_id INTEGER NOT NULL,
    PRIMARY KEY (party_id, row_id)
) WITHOUT ROWID;
CREATE INDEX acs_snapshot_parties_template ON acs_snapshot_parties (party_id, template_id, row_id);
