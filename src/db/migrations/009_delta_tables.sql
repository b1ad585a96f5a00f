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
-- change counter its `txn` names: a mirror restored from a backup does not know a table's newer
-- version, and its counter then means other changes, so such a table is written whole. The counter a
-- commit under way will name is noted first (pending), so a run killed just after its commit is known.
-- A row appears with a table's first commit; until then (or for a place never written) there is none.
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
