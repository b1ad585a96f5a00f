-- Schema drift (issue 14): field paths the spec does not list, and values of a listed enum outside the
-- spec's list, per stream, as the sync (and verify) met them in the API's records.
-- A field is one row per (stream, path); an enum value one row per (stream, path, value), the value
-- being its example. `count` counts the records it was seen in; `example` is truncated, emails masked.

CREATE TABLE schema_drift (
  stream TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('field', 'enum_value')),
  path TEXT NOT NULL,
  example TEXT NOT NULL,
  first_seen_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  count INTEGER NOT NULL
);
CREATE UNIQUE INDEX schema_drift_fields ON schema_drift (stream, path) WHERE kind = 'field';
CREATE UNIQUE INDEX schema_drift_enum_values ON schema_drift (stream, path, example) WHERE kind = 'enum_value';
