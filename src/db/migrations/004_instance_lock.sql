-- One row per held lock. A holder renews expires_at while it works; a crashed holder stops
-- renewing, and the next process takes the lock over once the lease has run out.
CREATE TABLE instance_lock (
  name TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  pid INTEGER NOT NULL,
  hostname TEXT NOT NULL,
  command TEXT NOT NULL,
  acquired_at TEXT NOT NULL,
  heartbeat_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
