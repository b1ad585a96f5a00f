-- The write inbox in the bucket (issue 27): CSV files put under PREFIX/inbox/KIND/NAME.csv are queued
-- once, and their outcome lands in PREFIX/outbox/KIND/NAME.results.csv.
--
-- inbox_files: one row per distinct content of a kind folder: the same bytes under two names are one file,
-- imported (or refused) once.
--   kind       the folder's name as found; a folder that names no kind is refused like a bad file
--   sha256     of the bytes
--   outcome    imported: its rows are queued (inbox_rows); refused: nothing queued, `errors` says why
--   errors     one line per problem ("line N: field: what is wrong"), as `queue import` says them
--   columns    JSON array of the header's columns, the input columns of the results file
CREATE TABLE inbox_files (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  sha256 TEXT NOT NULL,
  size INTEGER NOT NULL,
  first_name TEXT NOT NULL,
  seen_at TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('imported', 'refused')),
  errors TEXT,
  columns TEXT CHECK (columns IS NULL OR json_valid(columns)),
  CHECK ((outcome = 'imported') = (columns IS NOT NULL AND errors IS NULL)),
  UNIQUE (kind, sha256)
);

-- The rows of an imported file, in the file's order, each linked to the job that holds its write. A link
-- table rather than a column on write_jobs: one job can answer rows of several files (a file replaced by
-- one that repeats some of its rows queues those once, and both files' results name the same job).
--   position   0-based order of the row among the file's data rows
--   line       physical line where the row starts (the header is line 1)
--   cells      JSON array of the row's cells as written
-- A rowid table, though its key is (file_id, position): the state in the bucket ships a changed rowid table's
-- changed rows, but a table without rowids whole, which for every row ever imported would grow each save.
CREATE TABLE inbox_rows (
  file_id INTEGER NOT NULL REFERENCES inbox_files (id),
  position INTEGER NOT NULL,
  line INTEGER NOT NULL,
  cells TEXT NOT NULL CHECK (json_valid(cells)),
  job_id INTEGER NOT NULL REFERENCES write_jobs (id),
  PRIMARY KEY (file_id, position)
);
CREATE INDEX inbox_rows_job ON inbox_rows (job_id);

-- Each name in the inbox and the content it holds now, with what was last written beside it.
--   listed_size, listed_modified_ms  the listing's size and LastModified when its bytes were last read: while
--                                    both are unchanged the file is not read again (0: the store did not say)
--   results_sha256                   of the results file last written to outbox/KIND/NAME.results.csv, recorded
--                                    only once the store accepted it, so a failed write is tried again and an
--                                    unchanged outcome is not rewritten
--   errors_sha256                    likewise for inbox/KIND/NAME.errors.txt; NULL once it was removed
CREATE TABLE inbox_names (
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  file_id INTEGER NOT NULL REFERENCES inbox_files (id),
  listed_size INTEGER NOT NULL,
  listed_modified_ms INTEGER NOT NULL,
  seen_at TEXT NOT NULL,
  results_sha256 TEXT,
  results_written_at TEXT,
  errors_sha256 TEXT,
  PRIMARY KEY (kind, name)
);
