-- Schema version 3: what identifies a run.
--
-- Run ids are never reused (AUTOINCREMENT): a number that once named a
-- deleted run must not come to name another one, or figures computed for the
-- old run could be filed under the new one. SQLite can only add AUTOINCREMENT
-- by rebuilding the table; this runs with foreign keys off (Store::open turns
-- them on after migrating), so dropping the old table removes nothing that
-- refers to it, and the rename keeps every reference.
--
-- content_sha256 is the SHA-256 of the text a file decodes to (the same log
-- plain, gzip -6 or gzip -9 has one), head_sha256 that of its first 64 KiB:
-- a cheap first look that says when hashing the whole file before parsing it
-- is worth it.

CREATE TABLE runs_v3 (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT,
    platform_id            INTEGER NOT NULL REFERENCES platforms(id) ON DELETE CASCADE,
    offering_id            INTEGER REFERENCES offerings(id) ON DELETE SET NULL,
    kind                   TEXT    NOT NULL,
    source                 TEXT    NOT NULL,
    file_name              TEXT,
    sha256                 TEXT,
    format                 TEXT,
    host                   TEXT,
    started_at_ms          INTEGER,
    ended_at_ms            INTEGER,
    interval_ms            INTEGER,
    inventory_json         TEXT    NOT NULL DEFAULT '[]',
    offering_snapshot_json TEXT,
    billing_snapshot_json  TEXT    NOT NULL DEFAULT '[]',
    metadata_json          TEXT    NOT NULL DEFAULT '{}',
    warnings_json          TEXT    NOT NULL DEFAULT '[]',
    sample_count           INTEGER NOT NULL DEFAULT 0,
    created_at_ms          INTEGER NOT NULL,
    content_sha256         TEXT,
    head_sha256            TEXT
);

INSERT INTO runs_v3 (id, platform_id, offering_id, kind, source, file_name, sha256, format, host,
        started_at_ms, ended_at_ms, interval_ms, inventory_json, offering_snapshot_json,
        billing_snapshot_json, metadata_json, warnings_json, sample_count, created_at_ms)
    SELECT id, platform_id, offering_id, kind, source, file_name, sha256, format, host,
        started_at_ms, ended_at_ms, interval_ms, inventory_json, offering_snapshot_json,
        billing_snapshot_json, metadata_json, warnings_json, sample_count, created_at_ms
    FROM runs;

DROP TABLE runs;
ALTER TABLE runs_v3 RENAME TO runs;

CREATE INDEX runs_platform ON runs(platform_id);
-- The same file imported twice is recognised by its hash.
CREATE UNIQUE INDEX runs_sha256 ON runs(sha256) WHERE sha256 IS NOT NULL;
CREATE INDEX runs_content_sha256 ON runs(content_sha256) WHERE content_sha256 IS NOT NULL;
CREATE INDEX runs_head_sha256 ON runs(head_sha256) WHERE head_sha256 IS NOT NULL;

-- Values cached before this version may have been filed under a reused id.
DELETE FROM metric_cache;
