-- Schema version 11: money like for like.
--
-- Dated exchange rates with their source, so that prices in different
-- currencies are compared only through a rate the user can see; the
-- workspace's settings (its reporting currency); the prices catalogs and
-- the providers' price answers state, kept as evidence with where and
-- when they were said; and the source and date of each offering's prices.

CREATE TABLE exchange_rates (
    id            INTEGER PRIMARY KEY,
    from_currency TEXT NOT NULL,
    to_currency   TEXT NOT NULL,
    -- Exact decimal text: units of to_currency for one from_currency.
    rate          TEXT NOT NULL,
    on_date       TEXT NOT NULL,
    source        TEXT,
    UNIQUE (from_currency, to_currency, on_date)
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE price_quotes (
    id                INTEGER PRIMARY KEY,
    run_id            INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    provider          TEXT,
    region            TEXT,
    zone              TEXT,
    instance_type     TEXT NOT NULL,
    accelerator       TEXT,
    accelerator_count INTEGER,
    vcpus             REAL,
    memory_gib        REAL,
    mode              TEXT NOT NULL,
    -- Exact decimal text, the whole instance's price for one `per`.
    price             TEXT NOT NULL,
    per               TEXT NOT NULL,
    currency          TEXT NOT NULL,
    observed_at_ms    INTEGER
);
CREATE INDEX price_quotes_run ON price_quotes(run_id);

ALTER TABLE offerings ADD COLUMN price_source TEXT;
ALTER TABLE offerings ADD COLUMN priced_on TEXT;
