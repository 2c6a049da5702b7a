//! Import of run logs written elsewhere: detect the format from the content,
//! parse it into one run, all or nothing.
//!
//! A file becomes exactly one run in one transaction. Its SHA-256 recognises
//! it when offered again. A bad line stops the import with `file:line:column:
//! reason` and stores nothing, unless the user chose to skip bad lines; a
//! last line cut off mid-write is accepted with a warning; gaps longer than
//! three sampling intervals become interruption events. Gzipped and UTF-16
//! files are read through `decode` into the UTF-8 text every parser reads.
//!
//! The formats themselves are `breakpoint-formats`; this module is the
//! pipeline around them: the file, its identity, the transaction, the
//! store as the parsers' sample sink, and what is judged once a log is
//! read whole (silences, lost GPUs, implausible times).

pub mod bundle;
mod catalog;
mod completion;
mod hashing;
mod known_bill_lines;
mod numbering;
mod passive;
mod paths;
mod plausibility;
mod reading;
mod silences;
mod source;
mod tally;
mod timings;

pub(crate) use breakpoint_formats::parsers as formats;
use breakpoint_formats::timings::ReadTimings;
pub use breakpoint_formats::{
    BuiltRun, Format, GpuKey, LineError, Loss, ParseContext, ParseFailure, RunBuilder, SinkError,
    decode, detect, normalise_bus_id, timestamps,
};

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde::Serialize;

pub use paths::{Expanded, expand_paths};

pub use crate::domain::Duplicate;
use crate::domain::{NewRun, Provenance, RunKind, SourceKind};
use crate::store::{RunCompletion, RunRecords, SampleWriter, Store, WriteSummary};
use crate::text;
use completion::{Identity, complete};
pub use reading::Replaced;
use reading::{READ_WITH, changed_reading, reading};
pub use tally::EventTally;
pub use timings::ImportTimings;
use timings::Stopwatch;

/// What the user says about the files being imported.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    pub platform_id: i64,
    pub offering_id: Option<i64>,
    pub kind: Option<RunKind>,
    pub format: Option<Format>,
    /// Zone of timestamps written without one (nvidia-smi's).
    pub tz: TimeZone,
    /// Where `tz` came from, said in the import's summary.
    pub zone_from: ZoneFrom,
    /// Sampling interval for logs whose rows carry no time.
    pub interval_ms: Option<u32>,
    /// Field list of a header-less nvidia-smi CSV (the `--query-gpu` list).
    pub fields: Option<Vec<String>>,
    /// Anchor for logs that carry times of day or no times at all.
    pub start: Option<Timestamp>,
    /// The day a price catalog's quotes held, where it does not say.
    pub as_of: Option<jiff::civil::Date>,
    pub skip_bad_lines: bool,
    pub source: SourceKind,
    /// Set from elsewhere to stop an import between reads; nothing of the
    /// file is stored then.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Added to the run's metadata (what a bundle says of the logs in it).
    pub extra_metadata: serde_json::Map<String, serde_json::Value>,
    /// Time each file's import, by stage and by thread (`ImportReport::timings`).
    pub timings: bool,
}

/// A zone as a user names it: "Asia/Shanghai", or its offset ("+08:00").
fn zone_name(tz: &TimeZone) -> String {
    tz.iana_name().map_or_else(
        || tz.to_offset(Timestamp::now()).to_string(),
        str::to_string,
    )
}

/// Where the zone of times written without one came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneFrom {
    /// The user named it (`--tz`).
    Given,
    /// The platform's region, from its template (named).
    Region(String),
    /// This workstation's zone: nothing else was known.
    Workstation,
}

impl ImportOptions {
    /// Times written without a zone read in this workstation's.
    pub fn new(platform_id: i64) -> Self {
        Self::in_zone(platform_id, timestamps::local_zone(), ZoneFrom::Workstation)
    }

    /// Times written without a zone read in `tz`, for the reason `zone_from`.
    fn in_zone(platform_id: i64, tz: TimeZone, zone_from: ZoneFrom) -> Self {
        Self {
            platform_id,
            offering_id: None,
            kind: None,
            format: None,
            tz,
            zone_from,
            interval_ms: None,
            fields: None,
            start: None,
            as_of: None,
            skip_bad_lines: false,
            source: SourceKind::Import,
            cancel: None,
            extra_metadata: serde_json::Map::new(),
            timings: false,
        }
    }

    /// Options for a platform's logs: times written without a zone are
    /// read in `given` where the user named a zone, else in the zone of its
    /// region where its template knows it (a Beijing-time log read on a UTC
    /// workstation is eight hours off its bill), else in this
    /// workstation's. The workstation's zone is looked up only then: finding
    /// its name walks the zone database (a few milliseconds).
    pub fn for_platform(platform: &crate::domain::Platform, given: Option<TimeZone>) -> Self {
        if let Some(tz) = given {
            return Self::in_zone(platform.id, tz, ZoneFrom::Given);
        }
        let region = platform
            .template
            .as_deref()
            .and_then(crate::templates::find)
            .and_then(|t| Some((t.name, TimeZone::get(t.zone?).ok()?)));
        match region {
            Some((template, tz)) => {
                Self::in_zone(platform.id, tz, ZoneFrom::Region(template.to_string()))
            }
            None => Self::new(platform.id),
        }
    }

    /// "times written without a zone are read in Asia/Shanghai (AutoDL's
    /// region; --tz to change)"; nothing where the user named the zone.
    pub fn zone_note(&self) -> Option<String> {
        let zone = zone_name(&self.tz);
        let why = match &self.zone_from {
            ZoneFrom::Given => return None,
            ZoneFrom::Region(template) => format!("{template}'s region"),
            ZoneFrom::Workstation => "this workstation's zone".to_string(),
        };
        Some(format!(
            "times written without a zone are read in {zone} ({why}; --tz to change)"
        ))
    }
}

/// Whether a file is a log that names GPUs only by PCI address (a kernel
/// log), from its first bytes; a file that cannot be read or is compressed
/// says no (it is imported in its turn).
pub fn names_gpus_by_address_only(path: &Path) -> bool {
    let mut head = vec![0u8; 64 << 10];
    let n = File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    n > 0 && detect(&head[..n]) == Ok(Format::KernelLog)
}

/// Why a file was not imported. Nothing was stored in any case. Every
/// message is bounded and printable, whatever the file held.
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
    /// Well formed, and nothing in it to store.
    #[error("{file}: {reason}")]
    Empty { file: String, reason: String },
    #[error(transparent)]
    Store(#[from] crate::Error),
}

impl ImportError {
    fn line(file: &str, e: LineError) -> Self {
        ImportError::Line {
            file: text::printable(file).into_owned(),
            line: e.line,
            column: e.column,
            reason: text::bounded_message(&e.reason),
        }
    }

    /// Why a parse of `file` stopped, as the user is told it.
    pub fn of_parse(file: &str, failure: ParseFailure) -> Self {
        match failure {
            ParseFailure::Line(e) => ImportError::line(file, e),
            ParseFailure::Whole(reason) => ImportError::file(file, &reason),
            ParseFailure::Empty(reason) => ImportError::Empty {
                file: text::printable(file).into_owned(),
                reason: text::bounded_message(&reason),
            },
            ParseFailure::Io(e) => ImportError::file(file, &e.to_string()),
            ParseFailure::Sink(e) => ImportError::Store(store_error(e)),
            // Found only against a store; a parse alone never says it.
            ParseFailure::AlreadyImported { run_id, .. } => {
                ImportError::file(file, &format!("already imported as run {run_id}"))
            }
        }
    }

    pub(crate) fn file(file: &str, reason: &str) -> Self {
        ImportError::File {
            file: text::printable(file).into_owned(),
            reason: text::bounded_message(reason),
        }
    }
}

/// The outcome for one file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ImportOutcome {
    Imported(Box<ImportReport>),
    /// The same log was imported before; nothing was stored.
    AlreadyImported {
        file: String,
        run_id: i64,
        /// The earlier run's file name.
        earlier_file: Option<String>,
        /// The platform the earlier run is on (perhaps not the one asked).
        platform: String,
        /// `bytes`: the same file; `content`: the same text in another
        /// wrapping (gzip at another level, UTF-16, a capture).
        matched: Duplicate,
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
    /// The events found, by kind (and Xid code): what the import read in
    /// the log, beside the counts.
    pub found: Vec<EventTally>,
    /// The earlier run of the same log this one replaced, read differently
    /// then, and how.
    pub replaced: Option<Replaced>,
    /// Which zone times written without one were read in, and why, where
    /// the log wrote such times and the user named no zone.
    pub zone_note: Option<String>,
    /// What a price catalog did to the platform's offerings, line by line.
    pub priced: Vec<String>,
    /// Where the import's time went, where asked for (`ImportOptions::timings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<ImportTimings>,
}

/// Import one file as one run. The file is named in results as given
/// (`logs/node-2/gpu.csv`), so files of the same name in different folders
/// stay apart.
///
/// Before anything is parsed, a file whose first 64 KiB of text match an
/// earlier run is hashed whole and, if it is that run's log again (the same
/// bytes, or the same text compressed or encoded differently), nothing is
/// parsed or written. A file that changes while it is read (a log still
/// being written, truncated or replaced) is refused.
pub fn import_file(
    store: &Store,
    path: &Path,
    options: &ImportOptions,
    progress: Option<&mut dyn FnMut(u64)>,
) -> Result<ImportOutcome, ImportError> {
    let watch = options.timings.then(Stopwatch::start);
    let shown_as = path.display().to_string();
    let whole = |reason: String| ImportError::file(&shown_as, &reason);
    let file = File::open(path).map_err(|e| whole(format!("cannot open: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| whole(format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(whole("is not a regular file".into()));
    }
    let before = source::FileState::of(&meta);
    let file_time = meta
        .modified()
        .ok()
        .and_then(|m| Timestamp::try_from(m).ok());
    let head = source::decoded_head(&file).map_err(|e| whole(format!("cannot read: {e}")))?;
    let format = match options.format {
        Some(f) => f,
        // Bare numbers with `--fields` saying what they are: the columns of
        // a header-less nvidia-smi query.
        None => detect(&head)
            .or_else(|e| options.fields.as_ref().map(|_| Format::SmiCsv).ok_or(e))
            .map_err(whole)?,
    };
    let head_sha256 = source::sha256_hex(&head);
    let mut replacing = None;
    if let Some(earlier) = seen_before(store, path, &head_sha256)? {
        match changed_reading(store, earlier.run_id, options, format)? {
            Some(change) => replacing = Some((earlier.run_id, change)),
            None => return Ok(earlier.outcome(&shown_as)),
        }
    }
    let reader = source::Cancellable {
        inner: File::open(path).map_err(|e| whole(format!("cannot open: {e}")))?,
        cancel: options.cancel.clone(),
    };
    let check = UnchangedCheck {
        path,
        before,
        head_sha256,
        file_time,
        replacing: replacing.as_ref().map(|(id, _)| *id),
    };
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown_as.clone());
    let names = Names {
        file_name: &file_name,
        shown_as: &shown_as,
    };
    let mut outcome = read_into_run(
        store,
        reader,
        names,
        format,
        options,
        progress,
        Some(&check),
        watch,
    )?;
    if let (Some((run_id, change)), ImportOutcome::Imported(report)) = (replacing, &mut outcome) {
        report.replaced = Some(Replaced { run_id, change });
    }
    Ok(outcome)
}

/// How a file is named: in its run's provenance (its name alone, as it
/// would be on any machine) and in results and messages (as given, so
/// `node-1/gpu.csv` and `node-2/gpu.csv` stay apart).
#[derive(Clone, Copy)]
struct Names<'a> {
    file_name: &'a str,
    shown_as: &'a str,
}

/// Import from any reader (bytes the demo generated, a benchmark's file):
/// no duplicate look before parsing and no check that a file stayed put.
pub fn import_reader(
    store: &Store,
    reader: impl Read,
    file_name: &str,
    format: Format,
    options: &ImportOptions,
    progress: Option<&mut dyn FnMut(u64)>,
) -> Result<ImportOutcome, ImportError> {
    let names = Names {
        file_name,
        shown_as: file_name,
    };
    let watch = options.timings.then(Stopwatch::start);
    read_into_run(store, reader, names, format, options, progress, None, watch)
}

/// An earlier run that holds the same log.
struct Earlier {
    run_id: i64,
    file: Option<String>,
    platform: String,
    matched: Duplicate,
}

impl Earlier {
    fn outcome(self, file: &str) -> ImportOutcome {
        ImportOutcome::AlreadyImported {
            file: file.to_string(),
            run_id: self.run_id,
            earlier_file: self.file,
            platform: self.platform,
            matched: self.matched,
        }
    }

    fn of(store: &Store, run_id: i64, matched: Duplicate) -> crate::Result<Self> {
        let run = store.run(run_id)?;
        Ok(Earlier {
            run_id,
            platform: store.platform_by_id(run.platform_id)?.name,
            file: run.provenance.file_name,
            matched,
        })
    }

    fn find(store: &Store, sha256: &str, content_sha256: &str) -> crate::Result<Option<Self>> {
        let by_bytes = store
            .run_by_sha256(sha256)?
            .map(|id| (id, Duplicate::Bytes));
        let found = match by_bytes {
            Some(found) => Some(found),
            None => store
                .run_by_content_sha256(content_sha256)?
                .map(|id| (id, Duplicate::Content)),
        };
        found
            .map(|(run_id, matched)| Earlier::of(store, run_id, matched))
            .transpose()
    }
}

/// The earlier run this file repeats, found before parsing: only when a
/// run begins with the same text is the whole file hashed first.
fn seen_before(
    store: &Store,
    path: &Path,
    head_sha256: &str,
) -> Result<Option<Earlier>, ImportError> {
    if !store.has_run_with_head(head_sha256)? {
        return Ok(None);
    }
    let hashed = File::open(path).and_then(|f| source::hash_both(&f));
    match hashed {
        Ok((sha256, content)) => Ok(Earlier::find(store, &sha256, &content)?),
        // Unreadable to the end: the import proper will say why.
        Err(_) => Ok(None),
    }
}

/// What an import from a file checks once its bytes have been read.
struct UnchangedCheck<'p> {
    path: &'p Path,
    before: source::FileState,
    head_sha256: String,
    file_time: Option<Timestamp>,
    /// An earlier run of this same log, read with other options, that the
    /// new run takes the place of.
    replacing: Option<i64>,
}

/// `watch`: started when the import began, where it is timed.
#[allow(clippy::too_many_arguments)]
fn read_into_run(
    store: &Store,
    reader: impl Read,
    names: Names<'_>,
    format: Format,
    options: &ImportOptions,
    progress: Option<&mut dyn FnMut(u64)>,
    check: Option<&UnchangedCheck<'_>>,
    mut watch: Option<Stopwatch>,
) -> Result<ImportOutcome, ImportError> {
    let replacing = check.and_then(|c| c.replacing);
    let shown_as = names.shown_as;
    let kind = options.kind.unwrap_or(format.default_kind());
    let mut hashing = Some(hashing::HashingReader::new(reader, progress));
    let mut new_run = NewRun::new(options.platform_id, kind, options.source);
    new_run.offering_id = options.offering_id;
    new_run.provenance = Provenance {
        file_name: Some(names.file_name.to_string()),
        sha256: None,
        format: Some(format.as_str().to_string()),
        host: None,
    };
    let result = store.record_run(new_run, |store, run| {
        let mut writer = store.sample_writer(run.id)?;
        let mut builder = RunBuilder::new(&mut writer, options.skip_bad_lines, options.interval_ms);
        let mut ctx = ParseContext {
            file_name: names.file_name.to_string(),
            times: timestamps::TimeReader::new(options.tz.clone()),
            interval_ms: options.interval_ms,
            fields: options.fields.clone(),
            start: options.start,
            file_time: check.and_then(|c| c.file_time),
            timings: watch.map(|_| ReadTimings::default()),
        };
        let Some(reader) = hashing.as_mut() else {
            return Err(ParseFailure::Whole("the file was already read".into()));
        };
        let (text, wrapping) = decode::decode(reader)?;
        let mut text = source::ContentHasher::new(text, wrapping.transformed());
        if let Some(w) = watch.as_mut() {
            w.lap();
        }
        formats::parse(format, &mut text, &mut ctx, &mut builder)?;
        if let Some(w) = watch.as_mut() {
            w.lap();
        }
        let zone_note = ctx
            .times
            .read_zoneless()
            .then(|| options.zone_note())
            .flatten();
        // The content hash is of the whole text, read or not.
        let content_sha256 = text.finish()?;
        let mut built = builder.finish();
        catalog::date_quotes(&mut built, options, ctx.file_time);
        let written = writer.finish()?;
        for (k, v) in &options.extra_metadata {
            built.metadata.insert(k.clone(), v.clone());
        }
        if check.is_some() {
            // A file can be offered again, read another way.
            built
                .metadata
                .insert(READ_WITH.into(), reading(options, format));
        }
        built.warnings.extend(wrapping.warnings());
        let hashing::Hashed {
            sha256,
            bytes: bytes_read,
            cpu: hashing_cpu,
        } = hashing
            .take()
            .ok_or_else(|| ParseFailure::Whole("the file was already read".into()))?
            .finish()?;
        let encoding_cpu = written.encoding_cpu;
        if let Some(check) = check
            && let Some(reason) = check
                .before
                .changed(bytes_read, source::state_now(check.path).as_ref())
        {
            return Err(ParseFailure::Whole(reason));
        }
        let content_sha256 = content_sha256.unwrap_or_else(|| sha256.clone());
        if let Some(earlier) = Earlier::find(store, &sha256, &content_sha256)?
            && Some(earlier.run_id) != replacing
        {
            // Failing the transaction undoes this run.
            return Err(ParseFailure::AlreadyImported {
                run_id: earlier.run_id,
                matched: earlier.matched,
            });
        }
        if let Some(earlier) = replacing {
            // In the transaction that stores the new run: the swap is
            // whole or not at all.
            store.delete_run(earlier)?;
        }
        let identity = Identity {
            sha256,
            content_sha256,
            head_sha256: check.map(|c| c.head_sha256.clone()),
        };
        let (records, completion, mut report) = complete(
            store, run.id, format, kind, shown_as, identity, built, written,
        )?;
        report.zone_note = zone_note;
        if let Some(w) = watch.as_mut() {
            w.lap();
        }
        let threads = (ctx.timings.unwrap_or_default(), hashing_cpu, encoding_cpu);
        Ok((records, completion, (report, threads)))
    });
    match result {
        Ok((_, (mut report, (rows, hashing_cpu, encoding_cpu)))) => {
            report.timings = watch.map(|w| w.committed(rows, hashing_cpu, encoding_cpu));
            Ok(ImportOutcome::Imported(Box::new(report)))
        }
        Err(ParseFailure::AlreadyImported { run_id, matched }) => {
            Ok(Earlier::of(store, run_id, matched)?.outcome(shown_as))
        }
        Err(failure) => Err(ImportError::of_parse(shown_as, failure)),
    }
}

/// The store's own error back out of a parse that it failed.
fn store_error(e: SinkError) -> crate::Error {
    match e.into_inner().downcast::<crate::Error>() {
        Ok(e) => *e,
        Err(other) => crate::Error::Io(std::io::Error::other(other)),
    }
}

/// A store failure inside a parse travels as the sink's error.
impl From<crate::Error> for ParseFailure {
    fn from(e: crate::Error) -> Self {
        ParseFailure::Sink(SinkError::new(e))
    }
}

/// The store is where an import's samples go.
impl breakpoint_formats::SampleSink for SampleWriter<'_> {
    fn push(&mut self, sample: &crate::samples::Sample) -> Result<(), SinkError> {
        SampleWriter::push(self, sample).map_err(SinkError::new)
    }

    fn bill_line(
        &mut self,
        bill: &crate::domain::BillingLine,
        line: u64,
    ) -> Result<breakpoint_formats::BillLineTaken, SinkError> {
        SampleWriter::bill_line(self, bill, line).map_err(SinkError::new)
    }
}
