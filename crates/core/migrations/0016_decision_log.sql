-- Schema version 16: the decision's history.
--
-- Each import that moves the answer a buyer acts on (the platform in the
-- lead, its chance of being the best, the plan of what to measure next)
-- is kept: when, which evidence moved it, and the answer as it then stood
-- (written whole, as JSON, by the use case that computes it).
CREATE TABLE decision_log (
    id      INTEGER PRIMARY KEY,
    at_ms   INTEGER NOT NULL,
    trigger TEXT    NOT NULL,
    entry   TEXT    NOT NULL
);
