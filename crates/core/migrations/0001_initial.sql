-- Schema version 1: platforms and what they offer and charge, runs and their
-- evidence, sample chunks, weight profiles.
-- Times are integer milliseconds since the Unix epoch (UTC).

-- Marks the file as a Breakpoint database ("BKPT"), in the same transaction
-- as the schema so that a crash never leaves one without the other.
PRAGMA application_id = 1112232020;

CREATE TABLE platforms (
    id            INTEGER PRIMARY KEY,
    name          TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    kind          TEXT    NOT NULL
                  CHECK (kind IN ('hyperscaler', 'ai-native', 'chip-vendor', 'marketplace', 'other')),
    notes         TEXT,
    template      TEXT,
    created_at_ms INTEGER NOT NULL
);

CREATE TABLE offerings (
    id              INTEGER PRIMARY KEY,
    platform_id     INTEGER NOT NULL REFERENCES platforms(id) ON DELETE CASCADE,
    accelerator_raw TEXT    NOT NULL,
    vendor          TEXT    NOT NULL,
    count           INTEGER NOT NULL CHECK (count >= 1),
    vram_gib        INTEGER CHECK (vram_gib >= 1),
    form_factor     TEXT,
    interconnect    TEXT,
    pcie_gen        INTEGER,
    pcie_width      INTEGER,
    cpu_cores       INTEGER,
    ram_gib         INTEGER,
    region          TEXT,
    min_driver      TEXT,
    min_cuda        TEXT,
    currency        TEXT    NOT NULL,
    price_on_demand REAL    CHECK (price_on_demand >= 0),
    price_spot      REAL    CHECK (price_spot >= 0),
    price_monthly   REAL    CHECK (price_monthly >= 0)
);
CREATE INDEX offerings_platform ON offerings(platform_id);

CREATE TABLE billing_rules (
    id                    INTEGER PRIMARY KEY,
    platform_id           INTEGER NOT NULL REFERENCES platforms(id) ON DELETE CASCADE,
    offering_id           INTEGER REFERENCES offerings(id) ON DELETE CASCADE,
    mode                  TEXT    NOT NULL,
    granularity_s         INTEGER NOT NULL CHECK (granularity_s >= 1),
    minimum_charge_s      INTEGER NOT NULL DEFAULT 0 CHECK (minimum_charge_s >= 0),
    rounding              TEXT    NOT NULL,
    bills_queue           INTEGER NOT NULL,
    bills_io_wait         INTEGER NOT NULL,
    bills_idle            INTEGER NOT NULL,
    bills_stopped_storage INTEGER NOT NULL,
    idle_price_per_hour   REAL    CHECK (idle_price_per_hour >= 0),
    notes                 TEXT
);
-- One rule per platform (or offering) and mode; NULL offering means "the platform's default".
CREATE UNIQUE INDEX billing_rules_scope ON billing_rules(platform_id, ifnull(offering_id, 0), mode);

CREATE TABLE claims (
    id          INTEGER PRIMARY KEY,
    platform_id INTEGER NOT NULL REFERENCES platforms(id) ON DELETE CASCADE,
    subject     TEXT    NOT NULL,
    value       REAL,
    unit        TEXT,
    text        TEXT,
    source      TEXT    NOT NULL
);
CREATE INDEX claims_platform ON claims(platform_id);

CREATE TABLE runs (
    id                     INTEGER PRIMARY KEY,
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
    created_at_ms          INTEGER NOT NULL
);
CREATE INDEX runs_platform ON runs(platform_id);
-- The same file imported twice is recognised by its hash.
CREATE UNIQUE INDEX runs_sha256 ON runs(sha256) WHERE sha256 IS NOT NULL;

-- Samples in compressed columnar chunks: per run and GPU, a few thousand
-- consecutive samples per row (format in src/samples/codec.rs).
CREATE TABLE sample_chunks (
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    gpu        INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    t_first_ms INTEGER NOT NULL,
    t_last_ms  INTEGER NOT NULL,
    n          INTEGER NOT NULL CHECK (n >= 1),
    data       BLOB    NOT NULL,
    PRIMARY KEY (run_id, gpu, seq)
);

CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    at_ms       INTEGER NOT NULL,
    gpu         INTEGER,
    kind        TEXT    NOT NULL,
    code        INTEGER,
    duration_ms INTEGER,
    detail      TEXT
);
CREATE INDEX events_run ON events(run_id, at_ms);

CREATE TABLE startup_attempts (
    id                  INTEGER PRIMARY KEY,
    run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    scenario            TEXT    NOT NULL,
    image               TEXT    NOT NULL,
    submitted_at_ms     INTEGER NOT NULL,
    provisioned_at_ms   INTEGER,
    image_ready_at_ms   INTEGER,
    first_compute_at_ms INTEGER,
    outcome             TEXT    NOT NULL
);
CREATE INDEX startup_attempts_run ON startup_attempts(run_id);

CREATE TABLE switch_attempts (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    from_env     TEXT    NOT NULL,
    to_env       TEXT    NOT NULL,
    success      INTEGER NOT NULL,
    manual_steps INTEGER NOT NULL,
    duration_s   REAL    NOT NULL,
    rel_l2_error REAL,
    ops_passed   INTEGER,
    ops_total    INTEGER
);
CREATE INDEX switch_attempts_run ON switch_attempts(run_id);

CREATE TABLE fault_drills (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    fault           TEXT    NOT NULL,
    detected        INTEGER NOT NULL,
    recovered       INTEGER NOT NULL,
    recovery_s      REAL,
    progress_lost_s REAL
);
CREATE INDEX fault_drills_run ON fault_drills(run_id);

CREATE TABLE billing_lines (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    instance        TEXT    NOT NULL,
    start_ms        INTEGER NOT NULL,
    end_ms          INTEGER NOT NULL,
    billed_seconds  REAL    NOT NULL,
    compute_seconds REAL,
    queue_seconds   REAL,
    io_wait_seconds REAL,
    amount          REAL    NOT NULL,
    currency        TEXT    NOT NULL,
    unit_price      REAL    NOT NULL
);
CREATE INDEX billing_lines_run ON billing_lines(run_id);

CREATE TABLE weight_profiles (
    id                  INTEGER PRIMARY KEY,
    name                TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    builtin             INTEGER NOT NULL DEFAULT 0,
    w_startup           REAL    NOT NULL CHECK (w_startup >= 0),
    w_sustain           REAL    NOT NULL CHECK (w_sustain >= 0),
    w_switch            REAL    NOT NULL CHECK (w_switch >= 0),
    w_billing           REAL    NOT NULL CHECK (w_billing >= 0),
    metric_weights_json TEXT    NOT NULL DEFAULT '{}'
);
