-- The points ledger (issue 32): model tables derived from the mirror's streams, rebuilt after every sync from
-- the earliest day that new or changed records touch. Days are calendar days in program.timeZone, ISO text.
-- The README ("The points ledger") defines every column; src/ledger/models declares them.

-- One row per day from the first transaction's day to today, no gaps. Points are sums of the transactions'
-- points_approved and points_pending; each transaction's points count in exactly one movement column.
-- Every model table has rowids: the exporter reads the tables it exports in rowid order, and a Delta table's
-- files each hold a range of rowids.
CREATE TABLE points_ledger_daily (
  day TEXT NOT NULL PRIMARY KEY,
  approved_start INTEGER NOT NULL,
  approved_end INTEGER NOT NULL,
  pending_start INTEGER NOT NULL,
  pending_end INTEGER NOT NULL,
  earned INTEGER NOT NULL,
  reversed INTEGER NOT NULL,
  redeemed INTEGER NOT NULL,
  reimbursed INTEGER NOT NULL,
  expired INTEGER NOT NULL,
  other INTEGER NOT NULL,
  approved_from_pending INTEGER NOT NULL,
  transactions INTEGER NOT NULL,
  customers INTEGER NOT NULL,
  liability_end TEXT
);

-- One row per customer and day with a movement: a balance as of a date is the customer's last row on or before it.
CREATE TABLE customer_points_daily (
  customer_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  approved_change INTEGER NOT NULL,
  pending_change INTEGER NOT NULL,
  approved_end INTEGER NOT NULL,
  pending_end INTEGER NOT NULL,
  transactions INTEGER NOT NULL,
  PRIMARY KEY (customer_id, day)
);
CREATE INDEX customer_points_daily_day ON customer_points_daily (day);

-- One row per day of points_ledger_daily: members, activity, 30-day points, orders and revenue, repeat purchases, tiers.
CREATE TABLE program_metrics_daily (
  day TEXT NOT NULL PRIMARY KEY,
  members INTEGER NOT NULL,
  new_members INTEGER NOT NULL,
  active_members_30d INTEGER NOT NULL,
  points_earned_30d INTEGER NOT NULL,
  points_redeemed_30d INTEGER NOT NULL,
  redemption_rate_30d REAL,
  orders INTEGER NOT NULL,
  revenue TEXT NOT NULL,
  member_orders INTEGER NOT NULL,
  member_revenue TEXT NOT NULL,
  member_order_share REAL,
  member_revenue_share REAL,
  repeat_rate_members_90d REAL,
  repeat_rate_others_90d REAL,
  customers_by_tier TEXT
);

-- What the model tables were built from: the mirror's change counter they include, and the settings that shape
-- them (a change of either rebuilds them whole). One row.
--   member_day: in ledger_members, each customer's membership day as last built, so a changed customer
--   touches the days between its old and new membership only.
CREATE TABLE ledger_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  built_change_seq INTEGER NOT NULL,
  time_zone TEXT NOT NULL,
  point_value TEXT,
  last_day TEXT,
  built_at TEXT NOT NULL,
  build_ms INTEGER NOT NULL,
  rebuilt_from TEXT
);

CREATE TABLE ledger_members (
  customer_id INTEGER PRIMARY KEY,
  member_day TEXT NOT NULL
);

-- Each reconciliation of the transactions with the customers' balances (verify --ledger, and every verify):
-- its counts, and the defects it found as JSON (capped), for status and the metric loyalty_ledger_defects.
CREATE TABLE ledger_checks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  checked_at TEXT NOT NULL,
  customers INTEGER NOT NULL,
  balanced INTEGER NOT NULL,
  pending INTEGER NOT NULL,
  defects INTEGER NOT NULL,
  defects_json TEXT NOT NULL
);
