-- customer_points_daily is kept in day order, keyed by (day, customer_id), with no index by customer: a sync's
-- update then writes its new days' rows at the end of the table and of its key. Kept by customer, they landed at
-- random in two customer-ordered trees, and every update rewrote nearly every page of both (issue 32's update
-- target). ledger_balances holds each customer's balances after their last row, the one lookup by customer an
-- update needs (the balances a customer's rebuilt days start from). The rows move over as they are.
CREATE TABLE ledger_balances (
  customer_id INTEGER PRIMARY KEY,
  first_day TEXT NOT NULL,
  approved_end INTEGER NOT NULL,
  pending_end INTEGER NOT NULL
);
INSERT INTO ledger_balances (customer_id, first_day, approved_end, pending_end)
SELECT f.customer_id, f.first_day, c.approved_end, c.pending_end
FROM (SELECT customer_id, min(day) AS first_day, max(day) AS last_day FROM customer_points_daily GROUP BY customer_id) AS f
JOIN customer_points_daily AS c ON c.customer_id = f.customer_id AND c.day = f.last_day;

ALTER TABLE customer_points_daily RENAME TO customer_points_daily_by_customer;
CREATE TABLE customer_points_daily (
  customer_id INTEGER NOT NULL,
  day TEXT NOT NULL,
  approved_change INTEGER NOT NULL,
  pending_change INTEGER NOT NULL,
  approved_end INTEGER NOT NULL,
  pending_end INTEGER NOT NULL,
  transactions INTEGER NOT NULL,
  PRIMARY KEY (day, customer_id)
);
INSERT INTO customer_points_daily (customer_id, day, approved_change, pending_change, approved_end, pending_end, transactions)
SELECT customer_id, day, approved_change, pending_change, approved_end, pending_end, transactions FROM customer_points_daily_by_customer ORDER BY day, customer_id;
DROP TABLE customer_points_daily_by_customer;
