-- Objects under the write inbox that are no inbox file (issue 31): anything not shaped inbox/KIND/NAME.csv, such
-- as a spreadsheet or a note. Each is remembered as the listing showed it, so it is warned about once, not on
-- every run, counts as refused (loyalty_inbox_files, status) while it stays, and is looked at again once replaced.
-- A row goes when the listing no longer shows its object.
--   path                             under the state's prefix, as listed (inbox/…)
--   listed_size, listed_modified_ms  the listing's size and LastModified when it was last looked at: either
--                                    changed is new content under the same path (0: the store did not say)
--   seen_at                          when this content was first seen
--   errors_sha256                    of the errors file written beside it (PATH.errors.txt), recorded only once
--                                    the store accepted it, so a failed write is tried again
CREATE TABLE inbox_refused_objects (
  path TEXT PRIMARY KEY,
  listed_size INTEGER NOT NULL,
  listed_modified_ms INTEGER NOT NULL,
  seen_at TEXT NOT NULL,
  errors_sha256 TEXT
);
