-- Lookups of the ledger API's neighbours of the write path.
--
-- participant_updates_sequence finds an update's offset in a participant's
-- stream from its sequence, for the lookup of an update by its id
-- (transactions.update_id → sequence → offset). The table is WITHOUT
-- ROWID, so the index carries the primary key (participant,
-- ledger_offset) and covers the lookup. Sequences only grow, so appends
-- go to the end of the index.
CREATE INDEX participant_updates_sequence ON participant_updates (sequence);

-- A participant's local records of parties: the metadata its ledger API
-- keeps for a party (Canton's party records). resource_version is 0 when
-- the record is created and grows by one with every update.
CREATE TABLE party_records (
    participant_id       TEXT NOT NULL REFERENCES participants (id),
    party                TEXT NOT NULL,
    identity_provider_id TEXT NOT NULL, -- '' for the default one
    annotations          TEXT NOT NULL, -- JSON object
    resource_version     INTEGER NOT NULL,
    PRIMARY KEY (participant_id, party)
) WITHOUT ROWID;
