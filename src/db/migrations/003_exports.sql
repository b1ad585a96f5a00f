-- Export history: one row per `export` run, and per table the highest _change_seq its snapshot held,
-- which is where the next --since-last export of that table starts.
-- status: running → succeeded | failed; a run whose process died is marked interrupted by the next export.
-- pid: the exporting process, so the next export can tell a dead run's leftovers from a live one's.

CREATE TABLE export_runs (
  run_id TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('full', 'since_last')),
  previous_run_id TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'interrupted')),
  pid INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  snapshot_change_seq INTEGER,
  formats TEXT NOT NULL,
  files INTEGER NOT NULL DEFAULT 0,
  rows INTEGER NOT NULL DEFAULT 0,
  manifest_path TEXT,
  error TEXT
);
CREATE INDEX export_runs_status ON export_runs (status, finished_at);

CREATE TABLE export_run_tables (
  run_id TEXT NOT NULL REFERENCES export_runs (run_id) ON DELETE CASCADE,
  table_name TEXT NOT NULL,
  max_change_seq INTEGER NOT NULL,
  since_change_seq INTEGER,
  rows INTEGER NOT NULL,
  PRIMARY KEY (run_id, table_name)
);
