-- The store's tag (ETag) of an inbox name's bytes as the listing gave it when they were read: an object replaced
-- within the listing's one-second modification time by bytes of the same size lists the same size and time, and
-- only its tag tells it apart. Empty for a name read before this column, or from a store that gives no tag: then
-- its size and time alone say whether it changed, as before.
ALTER TABLE inbox_names ADD COLUMN listed_etag TEXT NOT NULL DEFAULT '';
