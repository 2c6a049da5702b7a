//! Import of run logs written elsewhere: detect the format from the content,
//! parse it into one run, all or nothing.
//!
//! A file becomes exactly one run in one transaction. Its SHA-256 recognises
//! it when offered again. A bad line stops the import with `file:line:column:
//! reason` and stores nothing, unless the user chose to skip bad lines; a
//! last line cut off mid-write is accepted with a warning; gaps longer than
//! three sampling intervals become interruption events. Gzipped and UTF-16
//! files are read through `decode` into the UTF-8 text every parser reads.

mod builder;
pub mod decode;
mod detect;
pub mod formats;
mod hashing;
mod lines;
mod paths;
mod smi_messages;
pub mod timestamps;
mod values;

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;

pub use builder::{GpuKey, LineError, Loss, ParseFailure, RunBuilder};
pub use detect::detect;
pub use paths::expand_paths;

use crate::domain::{NewRun, Provenance, RunKind, SourceKind};
use crate::store::{RunCompletion, Store};

labelled_enum! {
    /// Every format Breakpoint reads. Detected from content, never from the
    /// file name; `--format` forces one.
    pub enum Format ("format") {
        ProbeLog => "probe-log",
        ScriptLog => "script-log",
        SmiCsv => "nvidia-smi-csv",
        SmiDmon => "nvidia-smi-dmon",
        SmiQuery => "nvidia-smi-q",
        SmiTable => "nvidia-smi-table",
        Gpustat => "gpustat",
        DcgmDiag => "dcgmi-diag",
        DcgmiDmon => "dcgmi-dmon",
        PromText => "prometheus-text",
        PromRange => "prometheus-range",
        StartupTable => "startup-attempts",
        SwitchTable => "switch-attempts",
        DrillTable => "fault-drills",
        BillingTable => "billing-lines",
        BillingEvents => "billing-events",
    }
}

impl Format {
    /// The breakpoint a file of this format informs, unless told otherwise.
    pub fn default_kind(self) -> RunKind {
        match self {
            Format::SmiQuery | Format::DcgmDiag => RunKind::Delivery,
            Format::StartupTable => RunKind::Startup,
            Format::SwitchTable => RunKind::Switch,
            Format::DrillTable => RunKind::Drill,
            Format::BillingTable | Format::BillingEvents => RunKind::Billing,
            _ => RunKind::Sustain,
        }
    }
}

/// What the user says about the files being imported.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub platform_id: i64,
    pub offering_id: Option<i64>,
    pub kind: Option<RunKind>,
    pub format: Option<Format>,
    /// Zone of timestamps written without one (nvidia-smi's).
    pub tz: TimeZone,
    /// Sampling interval for logs whose rows carry no time.
    pub interval_ms: Option<u32>,
    /// Field list of a header-less nvidia-smi CSV (the `--query-gpu` list).
    pub fields: Option<Vec<String>>,
    /// Anchor for logs that carry times of day or no times at all.
    pub start: Option<Timestamp>,
    pub skip_bad_lines: bool,
    pub source: SourceKind,
}

impl ImportOptions {
    pub fn new(platform_id: i64) -> Self {
        Self {
            platform_id,
            offering_id: None,
            kind: None,
            format: None,
            tz: timestamps::local_zone(),
            interval_ms: None,
            fields: None,
            start: None,
            skip_bad_lines: false,
            source: SourceKind::Import,
        }
    }
}

/// What parsers may consult besides the text.
pub struct ParseContext {
    pub file_name: String,
    pub times: timestamps::TimeReader,
    pub interval_ms: Option<u32>,
    pub fields: Option<Vec<String>>,
    pub start: Option<Timestamp>,
}

/// Why a file was not imported. Nothing was stored in any case.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{file}:{line}{}: {reason}", column.map(|c| format!(":{c}")).unwrap_or_default())]
    Line {
        file: String,
        line: u64,
        column: Option<usize>,
        reason: String,
    },
    #[error("{file}: {reason}")]
    File { file: String, reason: String },
    #[error(transparent)]
    Store(#[from] crate::Error),
}

/// The outcome for one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ImportOutcome {
    Imported(ImportReport),
    /// The same bytes were imported before; nothing was stored.
    AlreadyImported {
        file: String,
        run_id: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportReport {
    pub file: String,
    pub format: Format,
    pub run_id: i64,
    pub kind: RunKind,
    pub gpus: usize,
    pub samples: u64,
    /// Events, attempts, drills and bill lines stored.
    pub records: u64,
    pub events: usize,
    pub gaps: usize,
    pub started_at: Option<Timestamp>,
    pub ended_at: Option<Timestamp>,
    pub interval_ms: Option<u32>,
    pub skipped_lines: u64,
    pub warnings: Vec<String>,
    pub sha256: String,
}

/// Import one file as one run.
pub fn import_file(
    store: &Store,
    path: &Path,
    options: &ImportOptions,
    progress: Option<&mut dyn FnMut(u64)>,
) -> Result<ImportOutcome, ImportError> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let whole = |reason: String| ImportError::File {
        file: path.display().to_string(),
        reason,
    };
    let format = match options.format {
        Some(f) => f,
        None => detect_file(path)?,
    };
    let file = File::open(path).map_err(|e| whole(format!("cannot open: {e}")))?;
    import_reader(
        store,
        file,
        &file_name,
        &path.display().to_string(),
        format,
        options,
        progress,
    )
}

/// The format of a file, from its first 64 KiB of text (decompressed and
/// transcoded as `decode` does for the parsers).
pub fn detect_file(path: &Path) -> Result<Format, ImportError> {
    let whole = |reason: String| ImportError::File {
        file: path.display().to_string(),
        reason,
    };
    let file = File::open(path).map_err(|e| whole(format!("cannot open: {e}")))?;
    let (text, _) = decode::decode(file).map_err(|e| whole(format!("cannot read: {e}")))?;
    let mut head = Vec::with_capacity(64 * 1024);
    // A read error after some text (a cut-off gzip) still leaves a head to
    // detect the format from.
    if let Err(e) = text.take(64 * 1024).read_to_end(&mut head)
        && head.is_empty()
    {
        return Err(whole(format!("cannot read: {e}")));
    }
    detect(&head).map_err(whole)
}

/// Import from any reader (a file, or bytes the demo generated).
pub fn import_reader(
    store: &Store,
    reader: impl Read,
    file_name: &str,
    shown_as: &str,
    format: Format,
    options: &ImportOptions,
    progress: Option<&mut dyn FnMut(u64)>,
) -> Result<ImportOutcome, ImportError> {
    let line_error = |e: LineError| ImportError::Line {
        file: shown_as.to_string(),
        line: e.line,
        column: e.column,
        reason: e.reason,
    };
    let whole = |reason: String| ImportError::File {
        file: shown_as.to_string(),
        reason,
    };
    let kind = options.kind.unwrap_or(format.default_kind());
    let mut hashing = Some(hashing::HashingReader::new(reader, progress));
    let result = store.atomically(|store| -> Result<ImportReport, ParseFailure> {
        let mut new_run = NewRun::new(options.platform_id, kind, options.source);
        new_run.offering_id = options.offering_id;
        new_run.provenance = Provenance {
            file_name: Some(file_name.to_string()),
            sha256: None,
            format: Some(format.as_str().to_string()),
            host: None,
        };
        let run = store.create_run(new_run)?;
        let mut builder = RunBuilder::new(
            store.sample_writer(run.id)?,
            options.skip_bad_lines,
            options.interval_ms,
        );
        let mut ctx = ParseContext {
            file_name: file_name.to_string(),
            times: timestamps::TimeReader::new(options.tz.clone()),
            interval_ms: options.interval_ms,
            fields: options.fields.clone(),
            start: options.start,
        };
        let Some(reader) = hashing.as_mut() else {
            return Err(ParseFailure::Whole("the file was already read".into()));
        };
        let (text, wrapping) = decode::decode(reader)?;
        formats::parse(
            format,
            BufReader::with_capacity(1 << 20, text),
            &mut ctx,
            &mut builder,
        )?;
        let mut built = builder.finish()?;
        built.warnings.extend(wrapping.warnings());
        let sha256 = hashing
            .take()
            .ok_or_else(|| ParseFailure::Whole("the file was already read".into()))?
            .finish()?;
        if let Some(existing) = store.run_by_sha256(&sha256)? {
            // Failing the transaction undoes this run.
            return Err(crate::Error::AlreadyImported { run_id: existing }.into());
        }
        Ok(complete(
            store, run.id, format, kind, file_name, sha256, built,
        )?)
    });
    match result {
        Ok(report) => Ok(ImportOutcome::Imported(report)),
        Err(ParseFailure::Line(e)) => Err(line_error(e)),
        Err(ParseFailure::Whole(reason)) => Err(whole(reason)),
        Err(ParseFailure::Io(e)) => Err(whole(e.to_string())),
        Err(ParseFailure::Store(crate::Error::AlreadyImported { run_id })) => {
            Ok(ImportOutcome::AlreadyImported {
                file: shown_as.to_string(),
                run_id,
            })
        }
        Err(ParseFailure::Store(e)) => Err(ImportError::Store(e)),
    }
}

/// After parsing: find gaps, store the small evidence, fill in the run.
fn complete(
    store: &Store,
    run_id: i64,
    format: Format,
    kind: RunKind,
    file_name: &str,
    sha256: String,
    mut built: builder::BuiltRun,
) -> crate::Result<ImportReport> {
    if built.written.out_of_order > 0 {
        built.warnings.push(format!(
            "{} samples were out of time order and have been sorted",
            built.written.out_of_order
        ));
    }
    let interval = built.interval_ms;
    let mut gaps = 0;
    let mut gap_events = Vec::new();
    let mut measured_interval = None;
    for gpu in store.sample_gpus(run_id)? {
        let frame = store.read_samples(run_id, gpu, None, Some(&[]))?;
        let step = interval.map(i64::from).or_else(|| frame.median_step_ms());
        measured_interval = measured_interval.or(step);
        let Some(step) = step.filter(|s| *s > 0) else {
            continue;
        };
        for w in frame.t_ms.windows(2) {
            let delta = w[1] - w[0];
            if delta > 3 * step
                && !explained_by_a_loss(&built.events, gpu, w[0], w[1])
                && let Some(event) = RunBuilder::gap_event(gpu, w[0], delta)
            {
                gap_events.push(event);
                gaps += 1;
            }
        }
    }
    built.events.extend(gap_events);
    built.events.sort_by_key(|e| e.at);
    store.add_events(run_id, &built.events)?;
    store.add_startup_attempts(run_id, &built.startup_attempts)?;
    store.add_switch_attempts(run_id, &built.switch_attempts)?;
    store.add_fault_drills(run_id, &built.fault_drills)?;
    store.add_billing_lines(run_id, &built.billing_lines)?;
    let records = (built.events.len()
        + built.startup_attempts.len()
        + built.switch_attempts.len()
        + built.fault_drills.len()
        + built.billing_lines.len()) as u64;
    let interval_ms = interval.or(measured_interval.and_then(|s| u32::try_from(s).ok()));
    let (started_at, ended_at) = match built.span {
        Some((a, b)) => (
            Timestamp::from_millisecond(a).ok(),
            Timestamp::from_millisecond(b).ok(),
        ),
        None => (None, None),
    };
    let gpus = built.inventory.len();
    store.complete_run(
        run_id,
        &RunCompletion {
            started_at,
            ended_at,
            interval_ms,
            sha256: Some(sha256.clone()),
            host: built.host,
            inventory: built.inventory,
            metadata: built.metadata,
            warnings: built.warnings.clone(),
        },
    )?;
    Ok(ImportReport {
        file: file_name.to_string(),
        format,
        run_id,
        kind,
        gpus,
        samples: built.written.samples,
        records,
        events: built.events.len(),
        gaps,
        started_at,
        ended_at,
        interval_ms,
        skipped_lines: built.skipped_lines,
        warnings: built.warnings,
        sha256,
    })
}

/// Whether a silence of `gpu` from `from_ms` to `to_ms` is the same incident
/// as a recorded loss of that GPU (or of every GPU): one interruption, not two.
fn explained_by_a_loss(
    events: &[crate::domain::Event],
    gpu: u32,
    from_ms: i64,
    to_ms: i64,
) -> bool {
    events.iter().any(|e| {
        let at = e.at.as_millisecond();
        e.kind == crate::domain::EventKind::GpuLost
            && e.gpu.is_none_or(|g| g == gpu)
            && at <= to_ms
            && at + e.duration_ms.unwrap_or(0) >= from_ms
    })
}
