-- The mirror: one table per stream. `raw` is the record exactly as the API returned it;
-- the typed columns beside it follow src/streams/*.ts. Money is TEXT (exact decimal strings),
-- timestamps are ISO 8601 TEXT, booleans 0/1, nested objects JSON TEXT.
-- _synced_at: when the row last changed in the mirror; _change_seq: the change_counter value of
-- the transaction that last changed it (exports use it to pick rows changed since the last export).

CREATE TABLE customers (
  id INTEGER PRIMARY KEY,
  merchant_id TEXT,
  email TEXT,
  points_approved INTEGER,
  points_pending INTEGER,
  points_spent INTEGER,
  rewards_claimed INTEGER,
  blocked INTEGER,
  guest INTEGER,
  enrolled INTEGER,
  enrolled_at TEXT,
  referral_id TEXT,
  referred_by_id INTEGER,
  referred_by_merchant_id TEXT,
  tier_id INTEGER,
  tier_name TEXT,
  tier_number INTEGER,
  tier_started_at TEXT,
  tier_expires_at TEXT,
  tier_manual INTEGER,
  insights_segment TEXT,
  birthday TEXT,
  referral_url TEXT,
  receipt_upload_url TEXT,
  loyalty_pass_url TEXT,
  loyalty_pass_installed INTEGER,
  ecom_source_url TEXT,
  properties TEXT,
  linked_merchant_ids TEXT,
  created_at TEXT,
  updated_at TEXT,
  raw TEXT NOT NULL,
  _synced_at TEXT NOT NULL,
  _change_seq INTEGER NOT NULL
);
CREATE INDEX customers_merchant_id ON customers (merchant_id);
CREATE INDEX customers_email ON customers (email);
CREATE INDEX customers_updated_at ON customers (updated_at);
CREATE INDEX customers_change_seq ON customers (_change_seq);

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  merchant_id TEXT,
  merchant_number TEXT,
  total TEXT,
  total_tax TEXT,
  total_shipping TEXT,
  total_discounts TEXT,
  total_paid TEXT,
  total_refunded TEXT,
  payment_status TEXT,
  fulfillment_status TEXT,
  refund_status TEXT,
  cancellation_status TEXT,
  ecom_source_url TEXT,
  ecom_source_name TEXT,
  ecom_location_id INTEGER,
  customer_id INTEGER,
  customer_merchant_id TEXT,
  customer_email TEXT,
  created_at TEXT,
  updated_at TEXT,
  raw TEXT NOT NULL,
  _synced_at TEXT NOT NULL,
  _change_seq INTEGER NOT NULL
);
CREATE INDEX orders_merchant_id ON orders (merchant_id);
CREATE INDEX orders_customer_id ON orders (customer_id);
CREATE INDEX orders_created_at ON orders (created_at);
CREATE INDEX orders_change_seq ON orders (_change_seq);

CREATE TABLE activities (
  id INTEGER PRIMARY KEY,
  merchant_id TEXT,
  value INTEGER,
  state TEXT,
  customer_id INTEGER,
  customer_merchant_id TEXT,
  customer_email TEXT,
  rule_id INTEGER,
  rule_name TEXT,
  rule_title TEXT,
  flow_id INTEGER,
  flow_journey_id INTEGER,
  flow_name TEXT,
  flow_block_id TEXT,
  resource TEXT,
  created_at TEXT,
  raw TEXT NOT NULL,
  _synced_at TEXT NOT NULL,
  _change_seq INTEGER NOT NULL
);
CREATE INDEX activities_customer_id ON activities (customer_id);
CREATE INDEX activities_created_at ON activities (created_at);
CREATE INDEX activities_change_seq ON activities (_change_seq);

CREATE TABLE transactions (
  id INTEGER PRIMARY KEY,
  customer_id INTEGER,
  customer_merchant_id TEXT,
  customer_email TEXT,
  points_approved INTEGER,
  points_pending INTEGER,
  resource TEXT,
  activity_id INTEGER,
  activity_state TEXT,
  activity_value INTEGER,
  created_at TEXT,
  raw TEXT NOT NULL,
  _synced_at TEXT NOT NULL,
  _change_seq INTEGER NOT NULL
);
CREATE INDEX transactions_customer_id ON transactions (customer_id);
CREATE INDEX transactions_created_at ON transactions (created_at);
CREATE INDEX transactions_change_seq ON transactions (_change_seq);

CREATE TABLE unsubscribes (
  id TEXT PRIMARY KEY,
  email TEXT,
  first_seen_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  removed_at TEXT,
  raw TEXT NOT NULL,
  _synced_at TEXT NOT NULL,
  _change_seq INTEGER NOT NULL
);
CREATE INDEX unsubscribes_email ON unsubscribes (email);
CREATE INDEX unsubscribes_change_seq ON unsubscribes (_change_seq);

-- One row: a counter each mirror-writing transaction increments once. SQLite serialises writers,
-- so a transaction that commits after an export's snapshot always holds a larger value than any
-- the snapshot saw.
CREATE TABLE change_counter (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  value INTEGER NOT NULL
);
INSERT INTO change_counter (id, value) VALUES (1, 0);

-- Per stream: where the next incremental read starts.
--   watermark        where the stream stands after its last complete run (max id, or newest updated_at)
--   pass_state       JSON of an unfinished run: the passes still to read, with the filters each started with
--   cursor           where the first of those passes continues (API cursor, or next page number of a walk)
--   cursor_pass      which pass that cursor belongs to (new, refresh, walk), for people reading the table
--   last_refresh_at  when a run last re-read the lookback window (or everything)
CREATE TABLE sync_state (
  stream TEXT PRIMARY KEY,
  watermark TEXT,
  cursor TEXT,
  cursor_pass TEXT,
  pass_state TEXT,
  last_refresh_at TEXT,
  last_success_at TEXT,
  last_error TEXT,
  last_error_at TEXT,
  updated_at TEXT NOT NULL
);

-- One row per stream per sync run.
CREATE TABLE sync_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id TEXT NOT NULL,
  stream TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'interrupted')),
  refresh INTEGER NOT NULL DEFAULT 0,
  rows_read INTEGER NOT NULL DEFAULT 0,
  rows_inserted INTEGER NOT NULL DEFAULT 0,
  rows_updated INTEGER NOT NULL DEFAULT 0,
  pages INTEGER NOT NULL DEFAULT 0,
  requests INTEGER NOT NULL DEFAULT 0,
  retries INTEGER NOT NULL DEFAULT 0,
  rate_limited INTEGER NOT NULL DEFAULT 0,
  error TEXT
);
CREATE INDEX sync_runs_stream ON sync_runs (stream, started_at);
