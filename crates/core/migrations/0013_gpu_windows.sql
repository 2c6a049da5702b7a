-- Schema version 13: fleets judged from summaries a time-series database
-- computed (`breakpoint import --prometheus … --summaries`).
--
-- A summary run keeps, per GPU and window, the figures the sustain
-- metrics need (points, busy, throttled, hot, power level, XID) instead
-- of the samples; `figures` is the window as JSON (model's GpuWindow).

CREATE TABLE gpu_windows (
    run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    gpu      INTEGER NOT NULL,
    start_ms INTEGER NOT NULL,
    end_ms   INTEGER NOT NULL,
    figures  TEXT    NOT NULL,
    PRIMARY KEY (run_id, gpu, start_ms)
) WITHOUT ROWID;
