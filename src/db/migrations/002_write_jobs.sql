-- The write queue (outbox): one row per write to push to the API, with its own retry state.
-- States: queued -> running -> succeeded | dead | unknown; queued -> cancelled.
-- `unknown`: the request may have reached the API and its outcome could not be proved.
-- ordering_key: jobs sharing it (one customer, one review) are sent one at a time, in id order.
-- in_doubt: an earlier attempt may have landed; an order is looked up before it is sent again.
-- checked_at: when reconciliation last looked for proof of an `unknown` job's outcome.
-- locked_by: `host:pid:uuid` of the worker that marked it running, so a later worker can tell a crashed one.
-- Times are ISO 8601 UTC text, so they compare as text.

CREATE TABLE write_jobs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('add_points', 'update_review', 'delete_review', 'create_order', 'claim_reward')),
  payload TEXT NOT NULL CHECK (json_valid(payload)),
  idempotency_key TEXT NOT NULL UNIQUE,
  ordering_key TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'succeeded', 'dead', 'unknown', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  first_attempt_at TEXT,
  in_doubt INTEGER NOT NULL DEFAULT 0 CHECK (in_doubt IN (0, 1)),
  checked_at TEXT,
  last_status INTEGER,
  last_error TEXT,
  last_error_code TEXT,
  response TEXT,
  source TEXT NOT NULL,
  locked_by TEXT,
  locked_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- The due-job query walks queued rows in queue order and stops at its LIMIT.
CREATE INDEX write_jobs_due ON write_jobs (state, id);
-- Per-key order checks: an earlier queued job, or a running one, of the same key.
CREATE INDEX write_jobs_ordering ON write_jobs (ordering_key, state, id);
-- Reconciliation: our writes sent since an instant.
CREATE INDEX write_jobs_updated ON write_jobs (updated_at);
