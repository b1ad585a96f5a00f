-- verify (issue 14).
-- _removed_at: when verify found the row in the mirror but no longer in the API. The row is kept (a
-- mirror never deletes), exports carry the mark, and the sync clears it when the API returns the row.
-- Unsubscribes keep their own removed_at (the address left the list); both marks are set together.
ALTER TABLE customers ADD COLUMN _removed_at TEXT;
ALTER TABLE orders ADD COLUMN _removed_at TEXT;
ALTER TABLE activities ADD COLUMN _removed_at TEXT;
ALTER TABLE transactions ADD COLUMN _removed_at TEXT;
ALTER TABLE unsubscribes ADD COLUMN _removed_at TEXT;
UPDATE unsubscribes SET _removed_at = removed_at WHERE removed_at IS NOT NULL;

-- One row per verify run: what was compared and found, per stream as JSON, and what was repaired.
--   mode      full (every row) or sample (a budget of requests)
--   streams   JSON list of per-stream results, as `verify --json` prints them (id lists capped)
--   ok        1 when no difference remains
CREATE TABLE verify_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  mode TEXT NOT NULL CHECK (mode IN ('full', 'sample')),
  repair INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  requests INTEGER NOT NULL DEFAULT 0,
  ok INTEGER,
  compared INTEGER NOT NULL DEFAULT 0,
  differences INTEGER NOT NULL DEFAULT 0,
  unsynced INTEGER NOT NULL DEFAULT 0,
  streams TEXT,
  error TEXT
);
