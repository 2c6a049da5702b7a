-- Schema version 7: each platform's gathered evidence, cached a second time
-- without its sources.
--
-- A ranking shown as a table needs each metric's median, minimum and
-- maximum, not the runs behind it with their files and hashes, which are
-- most of the bytes of a cached evidence (kilobytes a platform, read
-- through overflow pages). The summary is binary (postcard: numbers as
-- their bytes, nothing to parse) and lives in a table of its own so that
-- reading it never walks the whole evidence's pages. Both are written
-- together, at the same stamp.
--
-- The evidence now carries each platform's degradations; what was cached
-- before does not, and is gathered anew.

DELETE FROM evidence_cache;

CREATE TABLE evidence_summaries (
    platform_id INTEGER PRIMARY KEY REFERENCES platforms(id) ON DELETE CASCADE,
    engine      INTEGER NOT NULL,
    stamp       INTEGER NOT NULL,
    summary     BLOB    NOT NULL  -- postcard
);
