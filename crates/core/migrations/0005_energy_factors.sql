-- Schema version 5: energy factors per platform.
--
-- A platform's PUE and the carbon intensity of the grid it draws from, as
-- the user sets them (docs/energy.md): estimates that turn the GPU energy
-- measured from power samples into facility energy and carbon. A platform
-- without a row takes the documented defaults.

CREATE TABLE energy_factors (
    platform_id    INTEGER PRIMARY KEY REFERENCES platforms(id) ON DELETE CASCADE,
    pue            REAL    NOT NULL CHECK (pue >= 1.0),
    grid_g_per_kwh REAL    NOT NULL CHECK (grid_g_per_kwh >= 0.0)
);
