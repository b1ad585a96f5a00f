-- ledger_row_changes: which rows of customer_points_daily each ledger update wrote or deleted, as ranges of rowids
-- under the change counter value the update took, so its Delta table is written incrementally like the streams'
-- (the files holding those rowids, and the new rows) instead of whole on every export. A range with no bounds is a
-- rebuild of every row (a full build gives every row a new rowid). src/ledger/rowChanges.ts keeps and reads it.
-- A rowid table: the state in a bucket ships a WITHOUT ROWID table whole whenever a row of it changes.
CREATE TABLE ledger_row_changes (
  id INTEGER PRIMARY KEY,
  model TEXT NOT NULL,
  change_seq INTEGER NOT NULL,
  first_rowid INTEGER,
  last_rowid INTEGER
);
CREATE INDEX ledger_row_changes_by_seq ON ledger_row_changes (model, change_seq);

-- The build whose changes the notes cover, its built_at, written beside it by this version alone: a version before
-- this one that updates the tables again (a rollback, a job restoring the state with an older image) writes a new
-- built_at and not this, and its changes, never noted, send the next export back to writing the table whole.
ALTER TABLE ledger_state ADD COLUMN notes_built_at TEXT;
UPDATE ledger_state SET notes_built_at = built_at;

-- An update by an earlier version noted nothing: the next export of the table writes it whole, once. The counter
-- moves past every value an export can have reflected, so the mark is newer than all of them.
UPDATE change_counter SET value = value + 1 WHERE id = 1;
INSERT INTO ledger_row_changes (model, change_seq, first_rowid, last_rowid)
SELECT 'customer_points_daily', value, NULL, NULL FROM change_counter WHERE id = 1;
