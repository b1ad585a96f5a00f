-- Delta Lake tables (issue 18). A mirror gets an identity of its own: its Delta tables record in a `txn`
-- action how far they reflect *this* mirror's change counter, and their metaData.id derives from it, so a
-- table written from another mirror is never taken for this one's (a counter means nothing across mirrors).
CREATE TABLE mirror_identity (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  mirror_id TEXT NOT NULL
);
INSERT INTO mirror_identity (id, mirror_id) VALUES (1, lower(hex(randomblob(16))));

-- Each Delta table's state after the newest export that touched it, one row per place (the export folder
-- or a bucket), for `status` (reading the tables themselves would mean reaching the bucket), and the
-- change counter its `txn` names. A table naming a counter above every one recorded here was written
-- from a past the mirror no longer has (restored from a backup, its counter now means other changes),
-- so it is written whole. The counter a commit under way will name is noted first (pending), so a run
-- killed just after its commit is still known. Version -1: a first commit under way, or failed.
CREATE TABLE delta_tables (
  table_name TEXT NOT NULL,
  location TEXT NOT NULL,
  version INTEGER NOT NULL,
  files INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  rows INTEGER NOT NULL,
  mirror_change_seq INTEGER,
  pending_change_seq INTEGER,
  committed_at TEXT,
  checked_at TEXT NOT NULL,
  PRIMARY KEY (table_name, location)
);
