-- Schema version 15: the line of its file each bill line was read from.
--
-- Bill lines are stored as they are read, not held until the bill ends: a
-- line id given twice in one bill is found in the store, and its first
-- line named from here ("the line id L-1 was already on line 2").
ALTER TABLE billing_lines ADD COLUMN source_line INTEGER;
CREATE INDEX billing_lines_run_line_id ON billing_lines(run_id, line_id) WHERE line_id IS NOT NULL;
