-- Schema version 6: a platform's gathered evidence, cached.
--
-- Ranking reads every platform's evidence: its runs, each run's cached
-- metrics, its rules and prices. With thousands of runs that is most of a
-- ranking's time, though nothing changed since the last one. Each platform
-- has a stamp that every change to what its evidence is made of moves on
-- (the triggers below); gathered evidence is kept with the stamp it was
-- gathered at and used only while the stamp is unchanged. A cache written
-- from a read that raced a change carries the older stamp and is never
-- used. Stamps have no foreign key: a platform's children are deleted (and
-- stamp it) while the platform itself goes, and a stamp left for a gone
-- platform is harmless.

CREATE TABLE platform_stamps (
    platform_id INTEGER PRIMARY KEY,
    stamp       INTEGER NOT NULL
);

CREATE TABLE evidence_cache (
    platform_id INTEGER PRIMARY KEY REFERENCES platforms(id) ON DELETE CASCADE,
    engine      INTEGER NOT NULL,
    stamp       INTEGER NOT NULL,
    json        TEXT    NOT NULL
);

CREATE TRIGGER platforms_updated AFTER UPDATE ON platforms BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER runs_inserted AFTER INSERT ON runs BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER runs_updated AFTER UPDATE ON runs BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER runs_deleted AFTER DELETE ON runs BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (OLD.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER offerings_inserted AFTER INSERT ON offerings BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER offerings_updated AFTER UPDATE ON offerings BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER offerings_deleted AFTER DELETE ON offerings BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (OLD.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER billing_rules_inserted AFTER INSERT ON billing_rules BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER billing_rules_updated AFTER UPDATE ON billing_rules BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER billing_rules_deleted AFTER DELETE ON billing_rules BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (OLD.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER claims_inserted AFTER INSERT ON claims BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER claims_updated AFTER UPDATE ON claims BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER claims_deleted AFTER DELETE ON claims BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (OLD.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER energy_factors_inserted AFTER INSERT ON energy_factors BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER energy_factors_updated AFTER UPDATE ON energy_factors BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (NEW.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER energy_factors_deleted AFTER DELETE ON energy_factors BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES (OLD.platform_id, 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER events_inserted AFTER INSERT ON events WHEN (SELECT platform_id FROM runs WHERE id = NEW.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = NEW.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER events_deleted AFTER DELETE ON events WHEN (SELECT platform_id FROM runs WHERE id = OLD.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = OLD.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER startup_attempts_inserted AFTER INSERT ON startup_attempts WHEN (SELECT platform_id FROM runs WHERE id = NEW.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = NEW.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER startup_attempts_deleted AFTER DELETE ON startup_attempts WHEN (SELECT platform_id FROM runs WHERE id = OLD.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = OLD.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER switch_attempts_inserted AFTER INSERT ON switch_attempts WHEN (SELECT platform_id FROM runs WHERE id = NEW.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = NEW.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER switch_attempts_deleted AFTER DELETE ON switch_attempts WHEN (SELECT platform_id FROM runs WHERE id = OLD.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = OLD.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER fault_drills_inserted AFTER INSERT ON fault_drills WHEN (SELECT platform_id FROM runs WHERE id = NEW.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = NEW.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER fault_drills_deleted AFTER DELETE ON fault_drills WHEN (SELECT platform_id FROM runs WHERE id = OLD.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = OLD.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER billing_lines_inserted AFTER INSERT ON billing_lines WHEN (SELECT platform_id FROM runs WHERE id = NEW.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = NEW.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER billing_lines_deleted AFTER DELETE ON billing_lines WHEN (SELECT platform_id FROM runs WHERE id = OLD.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = OLD.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER sample_chunks_inserted AFTER INSERT ON sample_chunks WHEN (SELECT platform_id FROM runs WHERE id = NEW.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = NEW.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;

CREATE TRIGGER sample_chunks_deleted AFTER DELETE ON sample_chunks WHEN (SELECT platform_id FROM runs WHERE id = OLD.run_id) IS NOT NULL BEGIN
    INSERT INTO platform_stamps (platform_id, stamp) VALUES ((SELECT platform_id FROM runs WHERE id = OLD.run_id), 1) ON CONFLICT (platform_id) DO UPDATE SET stamp = stamp + 1;
END;
