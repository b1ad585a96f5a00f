-- Publication of export runs to object storage: one row per run that had a target (export.url).
-- status: running → completed | failed. A run is `succeeded` in export_runs only once its publication
-- completed, so `export --since-last` never skips rows that did not reach the bucket.

CREATE TABLE export_publications (
  run_id TEXT PRIMARY KEY REFERENCES export_runs (run_id) ON DELETE CASCADE,
  target TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  files INTEGER NOT NULL DEFAULT 0,
  bytes INTEGER NOT NULL DEFAULT 0,
  manifest_url TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  error TEXT
);
CREATE INDEX export_publications_started ON export_publications (started_at);
