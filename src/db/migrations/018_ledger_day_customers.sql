-- ledger_day_customers: the customers of each day of customer_points_daily, one blob a day (each id as 8 bytes,
-- big-endian two's complement, in ascending order; src/ledger/dayCustomers.ts reads them). An update's active
-- members read the 30 days before the first day it rebuilds: as the table's keys that was 380,000 index entries
-- and most of an update (issue 32's update target); as 30 blobs it is a tenth of that.
-- A rowid table: the state in a bucket ships a WITHOUT ROWID table whole whenever a row of it changes, and an update
-- changes only the days it rebuilt whose customers differ.
CREATE TABLE ledger_day_customers (
  day TEXT PRIMARY KEY,
  customers BLOB NOT NULL
);
INSERT INTO ledger_day_customers (day, customers)
SELECT day, unhex(group_concat(printf('%016x', customer_id), '' ORDER BY customer_id)) FROM customer_points_daily GROUP BY day;
