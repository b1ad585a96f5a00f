-- The daily model tables get rowids (issue 32, exports): the exporter reads every table it exports in rowid
-- order, and a Delta table's files each hold a range of rowids. Same columns and key; rows are kept.

CREATE TABLE points_ledger_daily_new (
  day TEXT NOT NULL UNIQUE,
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
INSERT INTO points_ledger_daily_new SELECT * FROM points_ledger_daily ORDER BY day;
DROP TABLE points_ledger_daily;
ALTER TABLE points_ledger_daily_new RENAME TO points_ledger_daily;

CREATE TABLE program_metrics_daily_new (
  day TEXT NOT NULL UNIQUE,
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
INSERT INTO program_metrics_daily_new SELECT * FROM program_metrics_daily ORDER BY day;
DROP TABLE program_metrics_daily;
ALTER TABLE program_metrics_daily_new RENAME TO program_metrics_daily;
