-- Schema version 4: money as exact decimals.
--
-- A bill line's amount and unit price were REAL: binary floats, in which
-- 0.1 is not 0.1 and a thousand lines do not add up to the cent. They are
-- now kept as decimal text beside the REAL columns (which stay, filled, for
-- tools that read the file); Breakpoint reads the text. Lines stored before
-- get the shortest decimal of their float, which is what was written.

ALTER TABLE billing_lines ADD COLUMN amount_exact TEXT;
ALTER TABLE billing_lines ADD COLUMN unit_price_exact TEXT;
UPDATE billing_lines
   SET amount_exact = CAST(amount AS TEXT),
       unit_price_exact = CAST(unit_price AS TEXT);
