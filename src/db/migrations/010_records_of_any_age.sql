-- Records of any age (issue 25). Orders and activities have no filter by update time, so a change to an
-- old one is seen only by reading the stream whole: the deep refresh. It is walked in slices across runs,
-- its plan and cursor stored with every group of pages, like a sync's, so a kill loses nothing.
--   plan               JSON of the refresh under way: its filters and the id spans its pages covered; NULL when none
--   cursor             where it continues
--   started_at         when the refresh under way began
--   pages, rows        what it has stored so far
--   last_started_at    when the last completed one began: every change made before then is in the mirror
--   last_completed_at  when it completed
--   last_removed       rows it marked removed (the API no longer returned them)
--   requested_at       `sync --deep` asked for one, not begun yet: the next sync begins it, whether or not it is due
CREATE TABLE deep_refresh (
  stream TEXT PRIMARY KEY,
  requested_at TEXT,
  plan TEXT,
  cursor TEXT,
  started_at TEXT,
  pages INTEGER NOT NULL DEFAULT 0,
  rows INTEGER NOT NULL DEFAULT 0,
  last_started_at TEXT,
  last_completed_at TEXT,
  last_removed INTEGER,
  last_error TEXT,
  last_error_at TEXT,
  updated_at TEXT NOT NULL
);

-- Mirror rows inside the id span of a page of the refresh under way that no page has returned (yet):
-- marked removed when the refresh completes, unless a later page returns them.
CREATE TABLE deep_refresh_absent (
  stream TEXT NOT NULL,
  id INTEGER NOT NULL,
  PRIMARY KEY (stream, id)
) WITHOUT ROWID;

-- Activities whose state a newly stored transaction shows different from the mirror's (an approval, a void,
-- a decline): the next activities pass re-reads them by created_at, whatever their age.
--   signalled_seq   the mirror change counter when last signalled: a plan clears only what it was made for
CREATE TABLE activity_signals (
  activity_id INTEGER PRIMARY KEY,
  created_at TEXT,
  signalled_seq INTEGER NOT NULL
);
