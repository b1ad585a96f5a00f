-- Schema drift of kind `type` (issue 20): values that do not parse as their field's type (money that is
-- not a decimal string, a timestamp that is not ISO 8601, an integer or boolean that is not one), stored
-- as NULL in the typed column and kept in `raw`. One row per (stream, path), like a field. SQLite cannot
-- widen a CHECK constraint in place, so the table is rebuilt with its rows.

CREATE TABLE schema_drift_new (
  stream TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('field', 'enum_value', 'type')),
  path TEXT NOT NULL,
  example TEXT NOT NULL,
  first_seen_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  count INTEGER NOT NULL
);
INSERT INTO schema_drift_new (stream, kind, path, example, first_seen_at, last_seen_at, count)
  SELECT stream, kind, path, example, first_seen_at, last_seen_at, count FROM schema_drift;
DROP TABLE schema_drift;
ALTER TABLE schema_drift_new RENAME TO schema_drift;
CREATE UNIQUE INDEX schema_drift_fields ON schema_drift (stream, path) WHERE kind = 'field';
CREATE UNIQUE INDEX schema_drift_enum_values ON schema_drift (stream, path, example) WHERE kind = 'enum_value';
CREATE UNIQUE INDEX schema_drift_types ON schema_drift (stream, path) WHERE kind = 'type';
