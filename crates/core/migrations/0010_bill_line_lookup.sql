-- A bill line already in the workspace is found by the provider's line id,
-- or, for exports without one, by its instance and period: a bill imported
-- twice in other bytes (another encoding, another line ending) or an export
-- overlapping an earlier one must not count its lines twice.
CREATE INDEX billing_lines_line_id ON billing_lines(line_id) WHERE line_id IS NOT NULL;
CREATE INDEX billing_lines_instance_start ON billing_lines(instance, start_ms);
