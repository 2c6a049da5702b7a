-- Schema version 12: what keeping and moving data costs.
--
-- A job's dataset and checkpoints stay on the platform's disks while it
-- runs, and some platforms bill moving them: per GB-month and per GB, in
-- the offering's currency, where the user knows them.

ALTER TABLE offerings ADD COLUMN price_storage_gb_month REAL;
ALTER TABLE offerings ADD COLUMN price_transfer_gb REAL;
