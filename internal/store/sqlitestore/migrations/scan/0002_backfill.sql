-- Backfilling from peers: a Scan that joins a running network ingests its
-- SV participant's stream from its joining transaction on and gets the
-- history before it from the other SVs' Scans, newest first, while live
-- ingestion goes on. The contracts table must end up as if the whole
-- history had been ingested in order, whichever order its updates arrive
-- in.

-- begun is 1 once BeginHistory has fixed the backfilling flags: the first
-- Ingest then keeps them instead of deciding from its starting offset.
ALTER TABLE ingestion ADD COLUMN begun INTEGER NOT NULL DEFAULT 0;
-- start_*: where a late-joining Scan's history begins (its joining
-- transaction), fixed by BeginHistory; backfilling brings what is older.
ALTER TABLE ingestion ADD COLUMN start_migration INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ingestion ADD COLUMN start_record_time INTEGER NOT NULL DEFAULT 0;

-- body_migration, body_record_time: the position of the update the body
-- comes from (the creation, an import update, or an assignment), so that
-- an older update stored later never replaces a newer body. Rows stored
-- before this migration get their creation's position: a lower bound of
-- their body's, which is enough, since a backfill brings only updates older
-- than every update the Scan held before it.
ALTER TABLE contracts ADD COLUMN body_migration INTEGER NOT NULL DEFAULT 0;
ALTER TABLE contracts ADD COLUMN body_record_time INTEGER NOT NULL DEFAULT 0;
UPDATE contracts SET body_migration = created_migration, body_record_time = created_record_time;

-- Archives of contracts the Scan holds no row of yet: their creation (or
-- the import update or assignment that brings them) is older than the
-- archive and arrives later, with a backfill. The archive is applied, and
-- its orphan row deleted, when the row arrives. A Scan whose history is
-- complete never gets such an archive.
CREATE TABLE orphans (
    contract_id          TEXT PRIMARY KEY,
    archived_migration   INTEGER NOT NULL,
    archived_record_time INTEGER NOT NULL
) WITHOUT ROWID;

-- ActiveContracts lists in (created_at, contract_id) order, the same on
-- every Scan whichever order it learnt of the contracts in (insertion
-- order, seq, differs between a Scan that ingested from the start and one
-- that backfilled).
DROP INDEX contracts_active;
DROP INDEX contracts_active_template;
CREATE INDEX contracts_active ON contracts (created_at, contract_id) WHERE archived_record_time IS NULL;
CREATE INDEX contracts_active_template ON contracts (template_id, created_at, contract_id) WHERE archived_record_time IS NULL;

-- An import update's id is its contract's id, so a contract that lives
-- through two hard migrations has an import update of the same id in
-- each: update ids are unique per migration, not in the whole history.
-- SQLite cannot drop a column's UNIQUE constraint, so the table is copied
-- (ids, and so the order of ties, kept).
CREATE TABLE updates_by_migration (
    id            INTEGER PRIMARY KEY,
    update_id     TEXT NOT NULL,
    migration_id  INTEGER NOT NULL,
    record_time   INTEGER NOT NULL,
    synchronizer  TEXT NOT NULL,
    ledger_offset INTEGER NOT NULL,
    is_import     INTEGER NOT NULL,
    created       TEXT,
    archived      TEXT,
    body          BLOB NOT NULL,
    UNIQUE (update_id, migration_id)
);
INSERT INTO updates_by_migration SELECT id, update_id, migration_id, record_time, synchronizer,
    ledger_offset, is_import, created, archived, body FROM updates;
DROP TABLE updates;
ALTER TABLE updates_by_migration RENAME TO updates;
CREATE INDEX updates_history ON updates (migration_id, record_time, synchronizer);
CREATE INDEX updates_before ON updates (migration_id, synchronizer, record_time);
CREATE INDEX updates_import ON updates (migration_id, update_id) WHERE is_import = 1;
