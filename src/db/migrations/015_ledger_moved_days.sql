-- A transaction or order whose created_at changes (a source that corrects a date, or a broken gateway) leaves
-- the ledger's rows of its old day counting it: an update rebuilds from the earliest day the changed rows have
-- now, which is after the old one when the date moved later. The old timestamps are noted here as the sync
-- writes the row, and the next update of the ledger rebuilds from the earliest of them too, then forgets them.
CREATE TABLE ledger_moved_from (
  source TEXT NOT NULL,
  created_at TEXT NOT NULL
);

CREATE TRIGGER ledger_transactions_moved AFTER UPDATE OF created_at ON transactions
  WHEN OLD.created_at IS NOT NULL AND OLD.created_at IS NOT NEW.created_at
BEGIN
  INSERT INTO ledger_moved_from (source, created_at) VALUES ('transactions', OLD.created_at);
END;

CREATE TRIGGER ledger_orders_moved AFTER UPDATE OF created_at ON orders
  WHEN OLD.created_at IS NOT NULL AND OLD.created_at IS NOT NEW.created_at
BEGIN
  INSERT INTO ledger_moved_from (source, created_at) VALUES ('orders', OLD.created_at);
END;
