//! Workspace bundles: evidence between people. One file holds the chosen
//! platforms with their offerings, billing rules, claims and energy
//! factors, the runs with everything stored for them (samples as stored,
//! events, attempts, drills, bill lines, provenance with the log's hash),
//! and the custom weight profiles — a Breakpoint database of its own,
//! gzipped, in a tar after a manifest that names its size and SHA-256.
//!
//! Merging a bundle is all or nothing: runs already here (same log hash)
//! are skipped, platforms are matched by name or template alias, and a
//! platform or profile that differs from ours under the same name is a
//! conflict the user resolves — never overwritten.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::archive::{self, sha256_hex};

mod scratch;
mod untrusted;

use crate::domain::{BillingRule, Offering, Platform};
use crate::error::{Error, Result};
use crate::store::{LATEST_VERSION as LATEST_SCHEMA_VERSION, Store, StoredProfile};

pub const WORKSPACE_FORMAT: &str = "breakpoint-workspace";
pub const WORKSPACE_VERSION: u32 = 1;
const DATABASE: &str = "workspace.sqlite.gz";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BundleEntry {
    pub name: String,
    pub bytes: u64,
    pub sha256: String,
    /// Its size once inflated: what the reader lets it inflate to (bundles
    /// of earlier builds do not say; see [`inflate_limit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inflated_bytes: Option<u64>,
}

/// How far a bundle's database may inflate: the size its manifest states
/// (checked exactly), else a hundred times its compressed size and 64 MiB
/// (a database of compressed samples shrinks a few times under gzip, never
/// a hundred) — never what a gzip bomb asks for.
fn inflate_limit(entry: &BundleEntry) -> u64 {
    entry
        .inflated_bytes
        .unwrap_or_else(|| entry.bytes.saturating_mul(100).saturating_add(64 << 20))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkspaceManifest {
    pub format: String,
    pub version: u32,
    /// The database schema inside: a newer one is refused.
    pub schema_version: i64,
    pub created_at: jiff::Timestamp,
    pub created_by: String,
    pub platforms: Vec<String>,
    pub runs: usize,
    pub samples: u64,
    pub entries: Vec<BundleEntry>,
}

/// What to put in a bundle: platforms by name, runs by id; both empty is
/// the whole workspace. A run brings its platform; a platform all its runs.
#[derive(Debug, Clone, Default)]
pub struct ExportRequest {
    pub platforms: Vec<String>,
    pub runs: Vec<i64>,
    /// Replace what is at the path even where it is not a plain file (a
    /// link, a device); never the workspace itself.
    pub force: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Exported {
    pub path: PathBuf,
    /// SHA-256 of the bundle file as written: what a report names.
    pub sha256: String,
    pub manifest: WorkspaceManifest,
}

fn bundle_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::Bundle {
        file: path.display().to_string(),
        reason: reason.into(),
    }
}

/// Write a bundle of what `request` picks to `path` (atomically: under a
/// temporary name, renamed when whole).
pub fn export(store: &Store, request: &ExportRequest, path: &Path) -> Result<Exported> {
    let destination = breakpoint_destination::Destination::check(
        path,
        &breakpoint_destination::Protected::workspace(store.path()),
        request.force,
    )?;
    let mut platform_ids: Vec<i64> = Vec::new();
    let mut run_ids: Vec<i64> = Vec::new();
    let everything = request.platforms.is_empty() && request.runs.is_empty();
    let chosen: Vec<Platform> = if everything {
        store.platforms()?
    } else {
        request
            .platforms
            .iter()
            .map(|name| store.platform(name))
            .collect::<Result<_>>()?
    };
    for p in &chosen {
        platform_ids.push(p.id);
        run_ids.extend(store.runs(Some(p.id))?.iter().map(|r| r.id));
    }
    for id in &request.runs {
        let run = store.run(*id)?;
        if !platform_ids.contains(&run.platform_id) {
            platform_ids.push(run.platform_id);
        }
        if !run_ids.contains(id) {
            run_ids.push(*id);
        }
    }
    let mut names = Vec::new();
    let mut samples = 0u64;
    for id in &platform_ids {
        names.push(store.platform_by_id(*id)?.name);
    }
    for id in &run_ids {
        samples += store.run(*id)?.sample_count;
    }

    let scratch = scratch::folder()?;
    let db_path = scratch.path().join("workspace.sqlite");
    {
        let bundle = Store::open(&db_path)?;
        // One file, no write-ahead log beside it.
        bundle
            .conn()
            .execute_batch("PRAGMA journal_mode = DELETE")?;
    }
    store.attach_bundle(&db_path)?;
    let copied = store.atomically(|s| s.copy_into_bundle(&platform_ids, &run_ids));
    store.detach_bundle()?;
    copied?;

    let inflated = std::fs::read(&db_path)?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&inflated)?;
    let database = gz.finish()?;
    let manifest = WorkspaceManifest {
        format: WORKSPACE_FORMAT.into(),
        version: WORKSPACE_VERSION,
        schema_version: LATEST_SCHEMA_VERSION,
        created_at: jiff::Timestamp::now(),
        created_by: format!("breakpoint {}", env!("CARGO_PKG_VERSION")),
        platforms: names,
        runs: run_ids.len(),
        samples,
        entries: vec![BundleEntry {
            name: DATABASE.into(),
            bytes: database.len() as u64,
            sha256: sha256_hex(&database),
            inflated_bytes: Some(inflated.len() as u64),
        }],
    };
    let mtime = manifest.created_at.as_second().max(0) as u64;
    archive::write(&destination, &manifest, &[(DATABASE, &database)], mtime)
        .map_err(|e| std::io::Error::new(e.source.kind(), e.to_string()))?;
    Ok(Exported {
        path: path.to_path_buf(),
        sha256: sha256_hex(&std::fs::read(path)?),
        manifest,
    })
}

/// The manifest and the database of a bundle, checked: the manifest first,
/// a known format and version, a schema no newer than ours, exactly the
/// entries it lists with their sizes and hashes. The database is written
/// to `into` (a scratch file), never to a name the archive gives.
fn unpack(path: &Path, into: &Path) -> Result<WorkspaceManifest> {
    let refuse = |reason: String| bundle_error(path, reason);
    let file = std::fs::File::open(path).map_err(|e| refuse(format!("cannot open: {e}")))?;
    let mut tar = tar::Archive::new(file);
    let mut entries = archive::Entries::of(&mut tar).map_err(refuse)?;
    let manifest: WorkspaceManifest = entries
        .manifest(1 << 20, "workspace bundle")
        .map_err(refuse)?;
    if manifest.format != WORKSPACE_FORMAT {
        return Err(refuse(format!(
            "a {} file, not a workspace bundle ({WORKSPACE_FORMAT})",
            manifest.format
        )));
    }
    if manifest.version > WORKSPACE_VERSION || manifest.schema_version > LATEST_SCHEMA_VERSION {
        return Err(refuse(format!(
            "made by a newer Breakpoint ({}; bundle version {}, schema {}; this one reads up to {WORKSPACE_VERSION} and {LATEST_SCHEMA_VERSION}): update Breakpoint",
            manifest.created_by, manifest.version, manifest.schema_version
        )));
    }
    let [expected] = manifest.entries.as_slice() else {
        return Err(refuse(format!(
            "the manifest lists {} entries; a workspace bundle has one ({DATABASE})",
            manifest.entries.len()
        )));
    };
    if expected.name != DATABASE {
        return Err(refuse(format!(
            "the manifest lists {}, not {DATABASE}: refused",
            expected.name
        )));
    }
    let mut entry = entries.expect(DATABASE).map_err(refuse)?;
    // The compressed bytes are checked against the manifest before a byte
    // is inflated: a changed or damaged bundle costs its own size, no more.
    if entry.size() != expected.bytes {
        return Err(refuse(format!(
            "{DATABASE} is {} bytes where the manifest says {}: the bundle was changed or damaged",
            entry.size(),
            expected.bytes
        )));
    }
    let compressed = into.with_extension("gz");
    // writes: the import's own scratch folder (see `scratch`).
    let mut scratch_file = std::fs::File::create(&compressed)?;
    let digest = archive::copy_hashed(&mut entry, DATABASE, expected.bytes, &mut scratch_file)
        .map_err(refuse)?;
    if digest != expected.sha256 {
        return Err(refuse(format!(
            "{DATABASE} does not match the manifest's SHA-256: the bundle was changed or damaged"
        )));
    }
    inflate(&compressed, into, inflate_limit(expected)).map_err(refuse)?;
    std::fs::remove_file(&compressed)?;
    entries.end().map_err(refuse)?;
    Ok(manifest)
}

/// Inflate the gzip at `from` into `to`, refusing past `limit` bytes (and,
/// where the manifest stated the size, anything but exactly it).
fn inflate(from: &Path, to: &Path, limit: u64) -> std::result::Result<(), String> {
    let input = std::fs::File::open(from).map_err(|e| format!("{DATABASE}: {e}"))?;
    let mut gz = flate2::read::GzDecoder::new(std::io::BufReader::new(input)).take(limit + 1);
    // writes: the import's own scratch folder (see `scratch`).
    let mut out = std::fs::File::create(to).map_err(|e| format!("{DATABASE}: {e}"))?;
    let written = std::io::copy(&mut gz, &mut out)
        .map_err(|e| format!("{DATABASE} is cut off or damaged: {e}"))?;
    if written > limit {
        return Err(format!(
            "{DATABASE} inflates past {limit} bytes, more than its manifest allows: refused"
        ));
    }
    out.sync_all().map_err(|e| format!("{DATABASE}: {e}"))?;
    Ok(())
}

/// How to settle a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resolution {
    /// Keep our platform or profile as it is; their runs join our platform.
    KeepOurs,
    /// Import theirs beside ours under a new name.
    RenameTheirs,
}

/// What a merge did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MergeReport {
    pub platforms_added: Vec<String>,
    /// Their name → ours.
    pub platforms_matched: Vec<(String, String)>,
    pub offerings_added: usize,
    pub billing_rules_added: usize,
    pub claims_added: usize,
    pub profiles_added: Vec<String>,
    pub runs_added: Vec<i64>,
    pub runs_already_here: usize,
    /// Runs of theirs already here under another platform of ours (the same
    /// log filed elsewhere): kept where they are, said here.
    pub runs_filed_elsewhere: Vec<String>,
    /// Conflicts and how they were settled.
    pub conflicts: Vec<String>,
}

/// The parts of a billing rule that decide a bill.
fn same_rule(a: &BillingRule, b: &BillingRule) -> bool {
    (
        a.mode,
        a.granularity_s,
        a.minimum_charge_s,
        a.rounding,
        a.bills_queue,
        a.bills_io_wait,
        a.bills_idle,
        a.bills_stopped_storage,
        a.idle_price_per_hour,
    ) == (
        b.mode,
        b.granularity_s,
        b.minimum_charge_s,
        b.rounding,
        b.bills_queue,
        b.bills_io_wait,
        b.bills_idle,
        b.bills_stopped_storage,
        b.idle_price_per_hour,
    )
}

fn same_offering(a: &Offering, b: &Offering) -> bool {
    Offering {
        id: 0,
        platform_id: 0,
        ..a.clone()
    } == Offering {
        id: 0,
        platform_id: 0,
        ..b.clone()
    }
}

/// Why their platform differs from ours, if it does: kind, or a
/// platform-wide billing rule of the same mode.
fn platform_difference(
    ours: &Platform,
    ours_rules: &[BillingRule],
    theirs: &Platform,
    theirs_rules: &[BillingRule],
) -> Option<String> {
    if ours.kind != theirs.kind {
        return Some(format!(
            "platform \"{}\": kind {} here, {} in the bundle",
            ours.name, ours.kind, theirs.kind
        ));
    }
    for t in theirs_rules.iter().filter(|r| r.offering_id.is_none()) {
        if let Some(o) = ours_rules
            .iter()
            .find(|o| o.offering_id.is_none() && o.mode == t.mode)
            && !same_rule(o, t)
        {
            return Some(format!(
                "platform \"{}\": {} billing rule {} here, {} in the bundle",
                ours.name,
                t.mode,
                o.in_words(),
                t.in_words()
            ));
        }
    }
    None
}

/// A free name for their platform or profile beside ours.
fn free_name(taken: impl Fn(&str) -> bool, base: &str) -> String {
    (2..)
        .map(|n| format!("{base} ({n})"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| base.to_string())
}

/// Merge the bundle at `path` into `store`, all or nothing: unpack and
/// check it, plan the merge reading only, then merge in one transaction.
pub fn import(
    store: &Store,
    path: &Path,
    resolution: Option<Resolution>,
) -> Result<(WorkspaceManifest, MergeReport)> {
    let scratch = scratch::folder()?;
    let db_path = scratch.path().join("workspace.sqlite");
    let (manifest, theirs) = open_checked(path, &db_path)?;
    let plan = Plan::read(store, &theirs)?;
    drop(theirs);
    if !plan.conflicts.is_empty() && resolution.is_none() {
        return Err(Error::BundleConflicts {
            file: path.display().to_string(),
            conflicts: plan.conflicts.into_iter().map(|(_, why)| why).collect(),
        });
    }
    store.attach_bundle(&db_path)?;
    let merged = store.atomically(|store| plan.merge(store, resolution));
    store.detach_bundle()?;
    Ok((manifest, merged?))
}

/// The bundle unpacked into `db_path` and checked as untrusted: its size
/// as the manifest says, nothing of it that could run, every row valid.
fn open_checked(path: &Path, db_path: &Path) -> Result<(WorkspaceManifest, Store)> {
    let manifest = unpack(path, db_path)?;
    if let Some(exact) = manifest.entries[0].inflated_bytes {
        let size = std::fs::metadata(db_path)?.len();
        if size != exact {
            return Err(bundle_error(
                path,
                format!(
                    "{DATABASE} inflates to {size} bytes where the manifest says {exact}: refused"
                ),
            ));
        }
    }
    // Nothing of theirs may run: tables only, read-only, time-bounded.
    untrusted::check_database(db_path, DATABASE).map_err(|reason| bundle_error(path, reason))?;
    // Bring an older bundle's schema up to ours (the scratch copy is ours
    // to change); a file that is not a Breakpoint database fails here.
    let theirs = Store::open(db_path).map_err(|e| {
        bundle_error(
            path,
            format!("{DATABASE} is not a Breakpoint database: {e}"),
        )
    })?;
    let limit = untrusted::Limit::on(theirs.conn())?;
    // Every row that would be copied, read and validated as ours are.
    untrusted::check_rows(&theirs, &limit, &format!("{}: {DATABASE}", path.display()))?;
    limit.rearm();
    Ok((manifest, theirs))
}

/// What a merge will do, read before anything is written: their
/// platforms with ours of the same name, their profiles, the conflicts.
struct Plan {
    platforms: Vec<(TheirPlatform, Option<Platform>)>,
    /// Their profiles, each with whether ours of that name differs.
    profiles: Vec<(StoredProfile, bool)>,
    /// (our name, why) for each platform or profile that differs.
    conflicts: Vec<(String, String)>,
}

impl Plan {
    fn read(store: &Store, theirs: &Store) -> Result<Self> {
        let mut plan = Plan {
            platforms: Vec::new(),
            profiles: Vec::new(),
            conflicts: Vec::new(),
        };
        for p in theirs.platforms()? {
            let t = TheirPlatform::read(theirs, p)?;
            let ours = match store.platform(&t.platform.name) {
                Ok(o) => Some(o),
                Err(Error::NotFound { .. }) => None,
                Err(e) => return Err(e),
            };
            if let Some(o) = &ours
                && let Some(why) =
                    platform_difference(o, &store.billing_rules(o.id)?, &t.platform, &t.rules)
            {
                plan.conflicts.push((o.name.clone(), why));
            }
            plan.platforms.push((t, ours));
        }
        let comparable = |s: &StoredProfile| {
            let mut s = s.clone();
            s.profile.id = 0;
            s
        };
        for p in theirs
            .weight_profiles()?
            .into_iter()
            .filter(|p| !p.profile.builtin)
        {
            match store.weight_profile(&p.profile.name) {
                Ok(o) if comparable(&o) == comparable(&p) => {}
                Ok(o) => {
                    plan.conflicts.push((
                        o.profile.name.clone(),
                        format!(
                            "weight profile \"{}\": different weights here and in the bundle",
                            o.profile.name
                        ),
                    ));
                    plan.profiles.push((p, true));
                }
                Err(Error::NotFound { .. }) => plan.profiles.push((p, false)),
                Err(e) => return Err(e),
            }
        }
        Ok(plan)
    }

    /// Write the merge (inside the caller's transaction).
    fn merge(&self, store: &Store, resolution: Option<Resolution>) -> Result<MergeReport> {
        let mut report = MergeReport::default();
        for (_, why) in &self.conflicts {
            report.conflicts.push(format!(
                "{why} — {}",
                match resolution {
                    Some(Resolution::KeepOurs) => "kept ours",
                    _ => "theirs imported under a new name",
                }
            ));
        }
        for (t, ours) in &self.platforms {
            let conflicting = ours
                .as_ref()
                .is_some_and(|o| self.conflicts.iter().any(|(name, _)| *name == o.name));
            let (target, fresh) =
                target_platform(store, t, ours, conflicting, resolution, &mut report)?;
            t.merge_into(store, &target, fresh, &mut report)?;
        }
        for (p, conflicting) in &self.profiles {
            if *conflicting && resolution == Some(Resolution::KeepOurs) {
                continue;
            }
            let mut p = p.clone();
            p.profile.id = 0;
            if *conflicting {
                p.profile.name = free_name(|n| store.weight_profile(n).is_ok(), &p.profile.name);
            }
            report.profiles_added.push(p.profile.name.clone());
            store.save_weight_profile(&p)?;
        }
        Ok(report)
    }
}

/// Which of our platforms their platform's evidence joins, and whether we
/// just created it: ours of the same name, unless it conflicts and the user
/// chose to import theirs under a new name.
fn target_platform(
    store: &Store,
    t: &TheirPlatform,
    ours: &Option<Platform>,
    conflicting: bool,
    resolution: Option<Resolution>,
    report: &mut MergeReport,
) -> Result<(Platform, bool)> {
    let p = &t.platform;
    match (ours, conflicting, resolution) {
        (Some(o), false, _) | (Some(o), true, Some(Resolution::KeepOurs)) => {
            report
                .platforms_matched
                .push((p.name.clone(), o.name.clone()));
            Ok((o.clone(), false))
        }
        (Some(_), true, _) => {
            let name = free_name(|n| store.platform(n).is_ok(), &p.name);
            let created = store.create_platform(&Platform {
                id: 0,
                name: name.clone(),
                ..p.clone()
            })?;
            report.platforms_added.push(name);
            Ok((created, true))
        }
        (None, _, _) => {
            let created = store.create_platform(&Platform { id: 0, ..p.clone() })?;
            report.platforms_added.push(p.name.clone());
            Ok((created, true))
        }
    }
}

/// A platform of the bundle with everything it holds.
struct TheirPlatform {
    platform: Platform,
    offerings: Vec<Offering>,
    rules: Vec<BillingRule>,
    claims: Vec<crate::domain::Claim>,
    energy: Option<(f64, f64)>,
    /// Each run's id in the bundle and its offering there.
    runs: Vec<(i64, Option<i64>)>,
}

impl TheirPlatform {
    fn read(theirs: &Store, platform: Platform) -> Result<Self> {
        Ok(TheirPlatform {
            offerings: theirs.offerings(Some(platform.id))?,
            rules: theirs.billing_rules(platform.id)?,
            claims: theirs.claims(Some(platform.id))?,
            energy: theirs.energy_factors(platform.id)?,
            runs: theirs
                .runs(Some(platform.id))?
                .iter()
                .map(|r| (r.id, r.offering_id))
                .collect(),
            platform,
        })
    }

    /// Everything of theirs that `target` lacks: offerings, billing rules,
    /// claims, energy factors (a fresh platform's, or where ours has
    /// none), and runs not already here.
    fn merge_into(
        &self,
        store: &Store,
        target: &Platform,
        fresh: bool,
        report: &mut MergeReport,
    ) -> Result<()> {
        let offering_map = self.merge_offerings(store, target, report)?;
        let mapped = |id: Option<i64>| {
            id.and_then(|id| offering_map.iter().find(|(t, _)| *t == id).map(|m| m.1))
        };
        // Billing rules: added where ours has none for that scope.
        let ours_rules = store.billing_rules(target.id)?;
        for r in &self.rules {
            let offering_id = mapped(r.offering_id);
            if ours_rules
                .iter()
                .any(|o| o.mode == r.mode && o.offering_id == offering_id)
            {
                continue;
            }
            store.set_billing_rule(&BillingRule {
                id: 0,
                platform_id: target.id,
                offering_id,
                ..r.clone()
            })?;
            report.billing_rules_added += 1;
        }
        let ours_claims = store.claims(Some(target.id))?;
        for c in &self.claims {
            let same = |x: &crate::domain::Claim| {
                (&x.subject, x.value, &x.unit, &x.text, &x.source)
                    == (&c.subject, c.value, &c.unit, &c.text, &c.source)
            };
            if !ours_claims.iter().any(same) {
                store.add_claim(&crate::domain::Claim {
                    id: 0,
                    platform_id: target.id,
                    ..c.clone()
                })?;
                report.claims_added += 1;
            }
        }
        if let Some((pue, grid)) = self.energy
            && (fresh || store.energy_factors(target.id)?.is_none())
        {
            store.set_energy_factors(target.id, pue, grid)?;
        }
        for (run_id, offering) in &self.runs {
            self.merge_run(store, target, *run_id, mapped(*offering), report)?;
        }
        Ok(())
    }

    /// Offerings: ours kept, theirs added unless the same. Returns their
    /// offering ids with ours.
    fn merge_offerings(
        &self,
        store: &Store,
        target: &Platform,
        report: &mut MergeReport,
    ) -> Result<Vec<(i64, i64)>> {
        let ours_offerings = store.offerings(Some(target.id))?;
        let mut offering_map = Vec::new();
        for o in &self.offerings {
            let id = match ours_offerings.iter().find(|x| same_offering(x, o)) {
                Some(x) => x.id,
                None => {
                    report.offerings_added += 1;
                    store
                        .create_offering(&Offering {
                            id: 0,
                            platform_id: target.id,
                            ..o.clone()
                        })?
                        .id
                }
            };
            offering_map.push((o.id, id));
        }
        Ok(offering_map)
    }

    /// One run of theirs: copied, unless a run of the same log is here
    /// (then said where, when it is filed under another platform).
    fn merge_run(
        &self,
        store: &Store,
        target: &Platform,
        run_id: i64,
        offering: Option<i64>,
        report: &mut MergeReport,
    ) -> Result<()> {
        if let Some(ours) = store.run_like_bundle_run(run_id)? {
            report.runs_already_here += 1;
            let here = store.run(ours)?;
            if here.platform_id != target.id {
                report.runs_filed_elsewhere.push(format!(
                    "{} of their {} is run {} of our {}",
                    here.provenance.file_name.as_deref().unwrap_or("a run"),
                    self.platform.name,
                    ours,
                    store.platform_by_id(here.platform_id)?.name
                ));
            }
            return Ok(());
        }
        report
            .runs_added
            .push(store.copy_run_from_bundle(run_id, target.id, offering)?);
        Ok(())
    }
}
