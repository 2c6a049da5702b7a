//! After a log's lines are read: its gaps found, the checks that need the
//! whole log (a perf log beyond its datasheet refused, bill lines the
//! workspace holds already left out), and what the run's row and the
//! import's report say of it.

use super::*;

/// What identifies a run's log: its bytes, its text, the start of its text.
pub(super) struct Identity {
    pub(super) sha256: String,
    pub(super) content_sha256: String,
    pub(super) head_sha256: Option<String>,
}

/// After parsing: find gaps, store the small evidence, fill in the run.
#[allow(clippy::too_many_arguments)]
pub(super) fn complete(
    store: &Store,
    run_id: i64,
    format: Format,
    kind: RunKind,
    file_name: &str,
    identity: Identity,
    mut built: BuiltRun,
    mut written: WriteSummary,
) -> Result<(RunRecords, RunCompletion, ImportReport), ParseFailure> {
    if let Some(warning) = plausibility::order_warning(built.backward_steps, built.samples_seen) {
        built.warnings.push(warning);
    }
    if format == Format::KernelLog {
        numbering::adopt(store, run_id, &mut built)?;
    }
    if format == Format::PerfLog
        && let Some(log) = built
            .metadata
            .get("perf")
            .and_then(|v| serde_json::from_value::<crate::perf::PerfLog>(v.clone()).ok())
    {
        plausibility::refuse_beyond_datasheet(&log)?;
        // Kept and shown, never scored: the run says so, and why.
        if let Some(why) = crate::perf::measures_nothing(&log) {
            built.warnings.push(format!(
                "{why}: its figures measure no platform; kept, never scored"
            ));
            built.metadata.insert(
                crate::domain::MEASURES_NOTHING.into(),
                serde_json::Value::from(why),
            );
        }
    }
    if let Some(warning) =
        known_bill_lines::leave_out(store, run_id, &mut built.billing_lines, &written.bill_lines)?
    {
        built.warnings.push(warning);
    }
    // Each GPU's steps as the writer tallied them; read back only where it
    // could not (samples out of order, a run renumbered since).
    let mut tallied = std::mem::take(&mut written.steps);
    if format == Format::KernelLog {
        tallied.clear();
    }
    let interval = built.interval_ms;
    let found = silences::find(store, run_id, interval, tallied, &built.events)?;
    built.warnings.extend(found.warnings);
    let (gaps, measured_interval) = (found.gaps, found.step_ms);
    // After the per-GPU checks, whose messages say more (a jump names both
    // sides of it).
    if let Some((first, last)) = built.span {
        plausibility::refuse_future(last, jiff::Timestamp::now().as_millisecond())?;
        plausibility::refuse_span(first, last)?;
    }
    built.events.extend(found.events);
    let passive = passive::find(store, run_id, &built.inventory, built.host.as_deref())?;
    built.events.extend(passive.events);
    if !passive.watched.is_empty() {
        built.metadata.insert(
            crate::domain::PASSIVE_WATCH.into(),
            serde_json::Value::from(passive.watched),
        );
    }
    built.events.sort_by_key(|e| e.at);
    let priced = if built.price_quotes.is_empty() {
        Vec::new()
    } else {
        let platform_id = store.run(run_id)?.platform_id;
        let today = timestamps::today();
        catalog::apply(
            store,
            platform_id,
            // The file by its name, not the folder it was read from.
            &format!(
                "{} {}",
                format.as_str(),
                std::path::Path::new(file_name)
                    .file_name()
                    .map_or(file_name.into(), |n| n.to_string_lossy())
            ),
            &built.price_quotes,
            Some(today),
        )?
    };
    let records = RunRecords {
        events: built.events,
        startup_attempts: built.startup_attempts,
        switch_attempts: built.switch_attempts,
        fault_drills: built.fault_drills,
        billing_lines: built.billing_lines,
        price_quotes: built.price_quotes,
    };
    let record_count = records.len() as u64 + built.metadata_records + written.bill_lines.stored;
    let interval_ms = interval.or(measured_interval.and_then(|s| u32::try_from(s).ok()));
    let undated = built.metadata.contains_key(crate::domain::UNDATED);
    let (started_at, ended_at) = match built.span {
        // Times counted from an origin, not dates: none is shown as one.
        Some(_) if undated => (None, None),
        Some((a, b)) => (
            Timestamp::from_millisecond(a).ok(),
            Timestamp::from_millisecond(b).ok(),
        ),
        None => (None, None),
    };
    if built.metadata_records > 0 {
        built.metadata.insert(
            crate::domain::KEPT_RECORDS.into(),
            serde_json::Value::from(built.metadata_records),
        );
    }
    let gpus = built.inventory.len();
    let events = records.events.len();
    let found = EventTally::of(&records.events);
    let completion = RunCompletion {
        started_at,
        ended_at,
        interval_ms,
        sha256: Some(identity.sha256.clone()),
        content_sha256: Some(identity.content_sha256),
        head_sha256: identity.head_sha256,
        host: built.host,
        inventory: built.inventory,
        metadata: built.metadata,
        warnings: built.warnings.clone(),
    };
    let report = ImportReport {
        file: file_name.to_string(),
        format,
        run_id,
        kind,
        gpus,
        samples: written.samples,
        records: record_count,
        events,
        gaps,
        started_at,
        ended_at,
        interval_ms,
        skipped_lines: built.skipped_lines,
        warnings: built.warnings,
        sha256: identity.sha256,
        found,
        replaced: None,
        zone_note: None,
        priced,
        timings: None,
    };
    Ok((records, completion, report))
}
