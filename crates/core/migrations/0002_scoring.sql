-- Schema version 2: scoring. Per-run metric cache, scoring curves and the
-- coverage threshold per weight profile, and the built-in presets (seed 003's
-- decision tree: urgent delivery → startup first; long-running inference →
-- billing and sustain; domestic accelerators → switch first; training at
-- scale → sustain first).

CREATE TABLE metric_cache (
    run_id      INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    engine      INTEGER NOT NULL,
    values_json TEXT    NOT NULL
);

ALTER TABLE weight_profiles ADD COLUMN curves_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE weight_profiles ADD COLUMN coverage_threshold REAL NOT NULL DEFAULT 0.5
    CHECK (coverage_threshold >= 0 AND coverage_threshold <= 1);

INSERT INTO weight_profiles (name, builtin, w_startup, w_sustain, w_switch, w_billing) VALUES
    ('balanced',               1, 0.25, 0.25, 0.25, 0.25),
    ('urgent-delivery',        1, 0.50, 0.20, 0.10, 0.20),
    ('long-running-inference', 1, 0.10, 0.40, 0.10, 0.40),
    ('domestic-accelerators',  1, 0.15, 0.20, 0.45, 0.20),
    ('training-at-scale',      1, 0.10, 0.50, 0.15, 0.25);
