-- A bill line as the provider names it: its own line id (what support
-- asks for), the instance's name or host where the export gives it, and
-- the product, so that a dispute can cite the line and match it to the
-- measured node.
ALTER TABLE billing_lines ADD COLUMN line_id TEXT;
ALTER TABLE billing_lines ADD COLUMN host TEXT;
ALTER TABLE billing_lines ADD COLUMN product TEXT;
