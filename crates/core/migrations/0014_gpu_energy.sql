-- Schema version 14: each GPU's energy kept beside its samples.
--
-- The import that writes a GPU's samples tallies the energy they hold as
-- it goes (the model's samples::energy), so that opening a run never reads
-- its samples to tell it. `rule` is the integration rule that made the
-- figure; a figure made under another is computed again. `kwh` is NULL for
-- a GPU whose samples hold no power interval: known to have none.

CREATE TABLE gpu_energy (
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    gpu       INTEGER NOT NULL,
    rule      INTEGER NOT NULL,
    kwh       REAL,
    hours     REAL,
    working_w REAL,
    waiting_w REAL,
    PRIMARY KEY (run_id, gpu)
) WITHOUT ROWID;
