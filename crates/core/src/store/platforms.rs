//! Platforms and what belongs to them: offerings, billing rules, claims.

use rusqlite::{OptionalExtension, Row, params};

use super::{Store, now_ms};
use crate::accelerator;
use crate::domain::{BillingRule, Claim, Offering, Platform, Prices, Vendor, validate};
use crate::error::{Error, Result, ValidationError};

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
    )
}

const PLATFORM_COLUMNS: &str = "id, name, kind, notes, template";

fn platform_from_row(r: &Row<'_>) -> rusqlite::Result<Platform> {
    Ok(Platform {
        id: r.get(0)?,
        name: r.get(1)?,
        kind: r.get(2)?,
        notes: r.get(3)?,
        template: r.get(4)?,
    })
}

const OFFERING_COLUMNS: &str = "id, platform_id, accelerator_raw, vendor, count, vram_gib, \
     form_factor, interconnect, pcie_gen, pcie_width, cpu_cores, ram_gib, region, min_driver, \
     min_cuda, currency, price_on_demand, price_spot, price_monthly, price_source, priced_on, \
     price_storage_gb_month, price_transfer_gb";

fn offering_from_row(r: &Row<'_>) -> rusqlite::Result<Offering> {
    let raw: String = r.get(2)?;
    let vendor: Vendor = r.get(3)?;
    // Names are normalised on read, so improvements to the table apply to
    // stored offerings too; the vendor is stored because a user may set it.
    let mut accelerator = accelerator::normalise(&raw);
    accelerator.vendor = vendor;
    Ok(Offering {
        id: r.get(0)?,
        platform_id: r.get(1)?,
        accelerator,
        count: r.get(4)?,
        vram_gib: r.get(5)?,
        form_factor: r.get(6)?,
        interconnect: r.get(7)?,
        pcie_gen: r.get(8)?,
        pcie_width: r.get(9)?,
        cpu_cores: r.get(10)?,
        ram_gib: r.get(11)?,
        region: r.get(12)?,
        min_driver: r.get(13)?,
        min_cuda: r.get(14)?,
        prices: Prices {
            currency: r.get(15)?,
            on_demand: r.get(16)?,
            spot: r.get(17)?,
            monthly: r.get(18)?,
            storage_gb_month: r.get(21)?,
            transfer_gb: r.get(22)?,
            source: r.get(19)?,
            priced_on: r.get::<_, Option<String>>(20)?.and_then(|d| d.parse().ok()),
        },
    })
}

const RULE_COLUMNS: &str = "id, platform_id, offering_id, mode, granularity_s, minimum_charge_s, \
     rounding, bills_queue, bills_io_wait, bills_idle, bills_stopped_storage, idle_price_per_hour, notes";

fn rule_from_row(r: &Row<'_>) -> rusqlite::Result<BillingRule> {
    Ok(BillingRule {
        id: r.get(0)?,
        platform_id: r.get(1)?,
        offering_id: r.get(2)?,
        mode: r.get(3)?,
        granularity_s: r.get(4)?,
        minimum_charge_s: r.get(5)?,
        rounding: r.get(6)?,
        bills_queue: r.get(7)?,
        bills_io_wait: r.get(8)?,
        bills_idle: r.get(9)?,
        bills_stopped_storage: r.get(10)?,
        idle_price_per_hour: r.get(11)?,
        notes: r.get(12)?,
    })
}

/// A platform with how much it holds, for listings.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlatformSummary {
    #[serde(flatten)]
    pub platform: Platform,
    pub offerings: i64,
    pub claims: i64,
    /// Runs that measured the platform.
    pub runs: i64,
    /// Runs that hold evidence about an offering — price lists, spot
    /// traces — rather than a measurement of the platform.
    pub offering_evidence: i64,
    pub samples: i64,
}

impl Store {
    /// Every platform with counts of what belongs to it, by name.
    pub fn platform_summaries(&self) -> Result<Vec<PlatformSummary>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT p.id, p.name, p.kind, p.notes, p.template,
                    (SELECT count(*) FROM offerings o WHERE o.platform_id = p.id),
                    (SELECT count(*) FROM claims c WHERE c.platform_id = p.id),
                    (SELECT count(*) FROM runs r WHERE r.platform_id = p.id
                        AND ifnull(r.format, '') NOT IN (SELECT value FROM json_each(?1))),
                    (SELECT ifnull(sum(r.sample_count), 0) FROM runs r WHERE r.platform_id = p.id),
                    (SELECT count(*) FROM runs r WHERE r.platform_id = p.id
                        AND r.format IN (SELECT value FROM json_each(?1)))
             FROM platforms p ORDER BY p.name COLLATE NOCASE",
        )?;
        let catalogs: Vec<&str> = breakpoint_formats::Format::ALL
            .iter()
            .filter(|f| f.is_offering_evidence())
            .map(|f| f.as_str())
            .collect();
        let catalogs = serde_json::to_string(&catalogs).unwrap_or_else(|_| "[]".into());
        let rows = stmt.query_map([catalogs], |r| {
            Ok(PlatformSummary {
                platform: platform_from_row(r)?,
                offerings: r.get(5)?,
                claims: r.get(6)?,
                runs: r.get(7)?,
                samples: r.get(8)?,
                offering_evidence: r.get(9)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// The platform whose name reads the same as `name` (case, composition
    /// and look-alike letters aside), other than `except`.
    fn platform_named_alike(&self, name: &str, except: Option<i64>) -> Result<Option<Platform>> {
        let key = validate::name_key(name);
        Ok(self
            .platforms()?
            .into_iter()
            .find(|p| Some(p.id) != except && validate::name_key(&p.name) == key))
    }

    /// Refuse a name another platform already has in all but code points.
    fn check_name_free(&self, platform: &Platform, except: Option<i64>) -> Result<()> {
        match self.platform_named_alike(&platform.name, except)? {
            Some(existing) if existing.name == platform.name => Err(Error::AlreadyExists {
                what: "platform",
                name: existing.name,
            }),
            Some(existing) => Err(Error::LooksLike {
                what: "platform",
                name: platform.name.clone(),
                existing: existing.name,
            }),
            None => Ok(()),
        }
    }

    pub fn create_platform(&self, platform: &Platform) -> Result<Platform> {
        // One write transaction: the check and the insert cannot be split by
        // another process adding the same name.
        self.atomically(|store| store.insert_platform(platform))
    }

    fn insert_platform(&self, platform: &Platform) -> Result<Platform> {
        self.check_name_free(platform, None)?;
        self.conn()
            .execute(
                "INSERT INTO platforms (name, kind, notes, template, created_at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![
                    platform.name,
                    platform.kind,
                    platform.notes,
                    platform.template,
                    now_ms()
                ],
            )
            .map_err(|e| {
                if is_unique_violation(&e) {
                    Error::AlreadyExists {
                        what: "platform",
                        name: platform.name.clone(),
                    }
                } else {
                    e.into()
                }
            })?;
        Ok(Platform {
            id: self.conn().last_insert_rowid(),
            ..platform.clone()
        })
    }

    pub fn platforms(&self) -> Result<Vec<Platform>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {PLATFORM_COLUMNS} FROM platforms ORDER BY name COLLATE NOCASE"
        ))?;
        let rows = stmt.query_map([], platform_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// A platform by name (as `validate::name_key` compares names), or by the
    /// Latin alias of the template it was made from (`aliyun` finds 阿里云),
    /// so that nobody needs a Chinese keyboard to script Breakpoint.
    pub fn platform(&self, name: &str) -> Result<Platform> {
        let by_name = |name: &str| {
            self.conn()
                .query_row(
                    &format!("SELECT {PLATFORM_COLUMNS} FROM platforms WHERE name = ?1"),
                    [name],
                    platform_from_row,
                )
                .optional()
        };
        let name = name.trim();
        if let Some(p) = by_name(name)? {
            return Ok(p);
        }
        if let Some(p) = self.platform_named_alike(name, None)? {
            return Ok(p);
        }
        if let Some(template) = crate::templates::find(name)
            && let Some(p) = by_name(template.name)?
        {
            return Ok(p);
        }
        Err(Error::not_found("platform", name))
    }

    pub fn platform_by_id(&self, id: i64) -> Result<Platform> {
        self.conn()
            .query_row(
                &format!("SELECT {PLATFORM_COLUMNS} FROM platforms WHERE id = ?1"),
                [id],
                platform_from_row,
            )
            .optional()?
            .ok_or_else(|| Error::not_found("platform", id))
    }

    pub fn update_platform(&self, platform: &Platform) -> Result<()> {
        self.atomically(|store| store.write_platform(platform))
    }

    fn write_platform(&self, platform: &Platform) -> Result<()> {
        self.check_name_free(platform, Some(platform.id))?;
        let changed = self
            .conn()
            .execute(
                "UPDATE platforms SET name = ?2, kind = ?3, notes = ?4 WHERE id = ?1",
                params![platform.id, platform.name, platform.kind, platform.notes],
            )
            .map_err(|e| {
                if is_unique_violation(&e) {
                    Error::AlreadyExists {
                        what: "platform",
                        name: platform.name.clone(),
                    }
                } else {
                    e.into()
                }
            })?;
        if changed == 0 {
            return Err(Error::not_found("platform", &platform.name));
        }
        Ok(())
    }

    /// Delete a platform with its offerings, billing rules, claims and runs.
    pub fn delete_platform(&self, id: i64) -> Result<()> {
        let changed = self
            .conn()
            .execute("DELETE FROM platforms WHERE id = ?1", [id])?;
        if changed == 0 {
            return Err(Error::not_found("platform", id));
        }
        Ok(())
    }

    /// Set a platform's PUE and grid carbon intensity (g CO₂/kWh); checked
    /// here so every face refuses the same values.
    pub fn set_energy_factors(
        &self,
        platform_id: i64,
        pue: f64,
        grid_g_per_kwh: f64,
    ) -> Result<()> {
        let (pue, grid) = validate::energy_factors(pue, grid_g_per_kwh)?;
        self.conn().execute(
            "INSERT INTO energy_factors (platform_id, pue, grid_g_per_kwh) VALUES (?1, ?2, ?3)
             ON CONFLICT (platform_id) DO UPDATE SET pue = excluded.pue,
                 grid_g_per_kwh = excluded.grid_g_per_kwh",
            params![platform_id, pue, grid],
        )?;
        Ok(())
    }

    /// Back to the defaults.
    pub fn clear_energy_factors(&self, platform_id: i64) -> Result<()> {
        self.conn().execute(
            "DELETE FROM energy_factors WHERE platform_id = ?1",
            [platform_id],
        )?;
        Ok(())
    }

    /// The PUE and grid intensity set for a platform, if any.
    pub fn energy_factors(&self, platform_id: i64) -> Result<Option<(f64, f64)>> {
        Ok(self
            .conn()
            .query_row(
                "SELECT pue, grid_g_per_kwh FROM energy_factors WHERE platform_id = ?1",
                [platform_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    pub fn create_offering(&self, offering: &Offering) -> Result<Offering> {
        self.conn().execute(
            "INSERT INTO offerings (platform_id, accelerator_raw, vendor, count, vram_gib,
                 form_factor, interconnect, pcie_gen, pcie_width, cpu_cores, ram_gib, region,
                 min_driver, min_cuda, currency, price_on_demand, price_spot, price_monthly,
                 price_source, priced_on, price_storage_gb_month, price_transfer_gb)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,
                 ?19, ?20, ?21, ?22)",
            params![
                offering.platform_id,
                offering.accelerator.raw,
                offering.accelerator.vendor,
                offering.count,
                offering.vram_gib,
                offering.form_factor,
                offering.interconnect,
                offering.pcie_gen,
                offering.pcie_width,
                offering.cpu_cores,
                offering.ram_gib,
                offering.region,
                offering.min_driver,
                offering.min_cuda,
                offering.prices.currency,
                offering.prices.on_demand,
                offering.prices.spot,
                offering.prices.monthly,
                offering.prices.source,
                offering.prices.priced_on.map(|d| d.to_string()),
                offering.prices.storage_gb_month,
                offering.prices.transfer_gb,
            ],
        )?;
        Ok(Offering {
            id: self.conn().last_insert_rowid(),
            ..offering.clone()
        })
    }

    /// Replace an offering's prices (from a catalog), with their source and day.
    pub fn set_offering_prices(&self, id: i64, prices: &Prices) -> Result<()> {
        let changed = self.conn().execute(
            "UPDATE offerings SET currency = ?2, price_on_demand = ?3, price_spot = ?4,
                 price_monthly = ?5, price_source = ?6, priced_on = ?7,
                 price_storage_gb_month = ?8, price_transfer_gb = ?9
             WHERE id = ?1",
            params![
                id,
                prices.currency,
                prices.on_demand,
                prices.spot,
                prices.monthly,
                prices.source,
                prices.priced_on.map(|d| d.to_string()),
                prices.storage_gb_month,
                prices.transfer_gb,
            ],
        )?;
        if changed == 0 {
            return Err(Error::not_found("offering", id));
        }
        Ok(())
    }

    /// Offerings of one platform, or of all platforms.
    pub fn offerings(&self, platform_id: Option<i64>) -> Result<Vec<Offering>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {OFFERING_COLUMNS} FROM offerings {} ORDER BY platform_id, id",
            super::platform_filter(platform_id)
        ))?;
        let rows = stmt.query_map([platform_id], offering_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn offering(&self, id: i64) -> Result<Offering> {
        self.conn()
            .query_row(
                &format!("SELECT {OFFERING_COLUMNS} FROM offerings WHERE id = ?1"),
                [id],
                offering_from_row,
            )
            .optional()?
            .ok_or_else(|| Error::not_found("offering", id))
    }

    pub fn delete_offering(&self, id: i64) -> Result<()> {
        let changed = self
            .conn()
            .execute("DELETE FROM offerings WHERE id = ?1", [id])?;
        if changed == 0 {
            return Err(Error::not_found("offering", id));
        }
        Ok(())
    }

    /// Create or replace the rule for the rule's platform (or offering) and mode.
    /// Offering `id`, where it is one of platform `platform_id`'s: a run or
    /// a billing rule of one platform never takes another's offering.
    pub fn offering_of(&self, platform_id: i64, id: i64) -> Result<Offering> {
        let offering = self.offering(id)?;
        if offering.platform_id != platform_id {
            let platform = self.platform_by_id(platform_id)?;
            return Err(ValidationError::new(
                "offering",
                format!(
                    "offering {id} does not belong to platform \"{}\"",
                    platform.name
                ),
            )
            .into());
        }
        Ok(offering)
    }

    pub fn set_billing_rule(&self, rule: &BillingRule) -> Result<BillingRule> {
        let rule = rule.clone().validate()?;
        if let Some(id) = rule.offering_id {
            self.offering_of(rule.platform_id, id)?;
        }
        self.conn().execute(
            "INSERT INTO billing_rules (platform_id, offering_id, mode, granularity_s,
                 minimum_charge_s, rounding, bills_queue, bills_io_wait, bills_idle,
                 bills_stopped_storage, idle_price_per_hour, notes)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
             ON CONFLICT (platform_id, ifnull(offering_id, 0), mode) DO UPDATE SET
                 granularity_s = excluded.granularity_s,
                 minimum_charge_s = excluded.minimum_charge_s,
                 rounding = excluded.rounding,
                 bills_queue = excluded.bills_queue,
                 bills_io_wait = excluded.bills_io_wait,
                 bills_idle = excluded.bills_idle,
                 bills_stopped_storage = excluded.bills_stopped_storage,
                 idle_price_per_hour = excluded.idle_price_per_hour,
                 notes = excluded.notes",
            params![
                rule.platform_id,
                rule.offering_id,
                rule.mode,
                rule.granularity_s,
                rule.minimum_charge_s,
                rule.rounding,
                rule.bills_queue,
                rule.bills_io_wait,
                rule.bills_idle,
                rule.bills_stopped_storage,
                rule.idle_price_per_hour,
                rule.notes,
            ],
        )?;
        let id = self.conn().query_row(
            "SELECT id FROM billing_rules
             WHERE platform_id = ?1 AND ifnull(offering_id, 0) = ifnull(?2, 0) AND mode = ?3",
            params![rule.platform_id, rule.offering_id, rule.mode],
            |r| r.get(0),
        )?;
        Ok(BillingRule { id, ..rule })
    }

    pub fn billing_rules(&self, platform_id: i64) -> Result<Vec<BillingRule>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT {RULE_COLUMNS} FROM billing_rules WHERE platform_id = ?1
             ORDER BY offering_id IS NOT NULL, offering_id, mode"
        ))?;
        let rows = stmt.query_map([platform_id], rule_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn add_claim(&self, claim: &Claim) -> Result<Claim> {
        self.conn().execute(
            "INSERT INTO claims (platform_id, subject, value, unit, text, source)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                claim.platform_id,
                claim.subject,
                claim.value,
                claim.unit,
                claim.text,
                claim.source
            ],
        )?;
        Ok(Claim {
            id: self.conn().last_insert_rowid(),
            ..claim.clone()
        })
    }

    pub fn claims(&self, platform_id: Option<i64>) -> Result<Vec<Claim>> {
        let mut stmt = self.conn().prepare_cached(&format!(
            "SELECT id, platform_id, subject, value, unit, text, source FROM claims {}
             ORDER BY platform_id, id",
            super::platform_filter(platform_id)
        ))?;
        let rows = stmt.query_map([platform_id], |r| {
            Ok(Claim {
                id: r.get(0)?,
                platform_id: r.get(1)?,
                subject: r.get(2)?,
                value: r.get(3)?,
                unit: r.get(4)?,
                text: r.get(5)?,
                source: r.get(6)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}
