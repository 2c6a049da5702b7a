//! Breakpoint's storage log (JSON Lines), written by `breakpoint accept
//! storage` on the rented instance: each data location's throughput and
//! latency, the checkpoint written and read back, the upload rate, and the
//! escape-hatch drill's outcome.
//!
//! ```text
//! {"format":"breakpoint-storage","version":1,"host":"node-3"}
//! {"kind":"location","t":1717200000000,"path":"/mnt/data","role":"data","direct":true,"bytes":2000000000,"write_s":14.2,"read_s":9.8,"random_reads":2000,"random_iops":812.0,"random_p50_ms":1.1,"random_p99_ms":9.4}
//! {"kind":"upload","t":1717200060000,"via":"ossutil cp {file} oss://bucket/x","bytes":1000000000,"seconds":21.5}
//! {"kind":"drill","t":1717200120000,"path":"/mnt/data","local":"/nvme","cut_s":60.0,"outcome":"continues","checkpoints":9,"longest_wait_s":0.4,"recovered_after_s":3.1,"detail":"…"}
//! ```
//!
//! The import keeps the records in the run's metadata (`storage`); the
//! metrics read them from there.

use std::io::BufRead;

use serde::{Deserialize, Serialize};

use super::super::ParseContext;
use super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;

pub const STORAGE_FORMAT: &str = "breakpoint-storage";
pub const STORAGE_VERSION: u32 = 1;

/// The checkpoint size the storage metrics speak of: a 7B-parameter model's
/// weights and optimiser state in mixed precision are of this order.
pub const REFERENCE_CHECKPOINT_BYTES: f64 = 20e9;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StorageHeader {
    pub format: String,
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// What a location is to the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// Where the dataset and checkpoints live: a data disk, a shared or
    /// network file system.
    Data,
    /// The instance's local SSD: the cache a job falls back on.
    Local,
}

/// One location's figures: a checkpoint-sized file written (with fsync)
/// and read back sequentially, and random 4 KiB reads within it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LocationFigures {
    pub t: i64,
    pub path: String,
    pub role: Role,
    /// Whether the file system took direct I/O (else the page cache was
    /// flushed and dropped around each phase).
    pub direct: bool,
    /// Bytes written and read back.
    pub bytes: u64,
    /// Seconds to write them and make them durable (fsync).
    pub write_s: f64,
    /// Seconds to read them back.
    pub read_s: f64,
    pub random_reads: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_iops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_p50_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_p99_ms: Option<f64>,
    /// Why a phase stopped before its size (its time bound, Ctrl-C).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_short: Option<String>,
}

impl LocationFigures {
    pub fn write_mb_s(&self) -> Option<f64> {
        rate(self.bytes, self.write_s)
    }

    pub fn read_mb_s(&self) -> Option<f64> {
        rate(self.bytes, self.read_s)
    }

    /// Seconds to write the reference checkpoint at the measured pace.
    pub fn reference_write_s(&self) -> Option<f64> {
        self.write_mb_s()
            .map(|mb_s| REFERENCE_CHECKPOINT_BYTES / 1e6 / mb_s)
    }
}

/// A file copied up through the platform's own tool, timed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UploadFigures {
    pub t: i64,
    /// The command, as the user gave it.
    pub via: String,
    pub bytes: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl UploadFigures {
    pub fn mb_s(&self) -> Option<f64> {
        self.seconds.and_then(|s| rate(self.bytes, s))
    }
}

/// What a job writing checkpoints did while its storage path was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DrillOutcome {
    /// Every checkpoint was kept (on the local cache while the path was
    /// cut) without holding the job up.
    Continues,
    /// A checkpoint held the job up past the stall limit until the path
    /// came back.
    Stalls,
    /// A checkpoint could not be written anywhere: the job would have died.
    Fails,
    /// The path could not be cut (no command named, no permission).
    NotRun,
}

impl DrillOutcome {
    /// The drill's score: continuing is what the review asks for; a stall
    /// loses time but not the job.
    pub fn score(self) -> Option<f64> {
        match self {
            DrillOutcome::Continues => Some(100.0),
            DrillOutcome::Stalls => Some(40.0),
            DrillOutcome::Fails => Some(0.0),
            DrillOutcome::NotRun => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            DrillOutcome::Continues => "continues",
            DrillOutcome::Stalls => "stalls",
            DrillOutcome::Fails => "fails",
            DrillOutcome::NotRun => "not run",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrillFigures {
    pub t: i64,
    /// The network path the job checkpoints to.
    pub path: String,
    /// The local cache it may fall back on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<String>,
    /// Seconds the path was cut for.
    pub cut_s: f64,
    pub outcome: DrillOutcome,
    /// Checkpoints the job saved during the drill.
    pub checkpoints: u32,
    /// The longest the job waited on one checkpoint, s.
    pub longest_wait_s: f64,
    /// Seconds from the path's return until a checkpoint reached it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovered_after_s: Option<f64>,
    /// What happened, in words.
    pub detail: String,
}

/// One line of the log after the header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum StorageRecord {
    Location(LocationFigures),
    Upload(UploadFigures),
    Drill(DrillFigures),
}

/// Everything a storage log measured, as the run's metadata keeps it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageSummary {
    #[serde(default)]
    pub locations: Vec<LocationFigures>,
    #[serde(default)]
    pub uploads: Vec<UploadFigures>,
    #[serde(default)]
    pub drills: Vec<DrillFigures>,
}

fn rate(bytes: u64, seconds: f64) -> Option<f64> {
    (seconds > 0.0 && seconds.is_finite() && bytes > 0).then(|| bytes as f64 / 1e6 / seconds)
}

fn seconds_ok(s: f64) -> bool {
    s.is_finite() && s >= 0.0
}

/// Why a record cannot be a measurement, if it cannot.
fn implausible(record: &StorageRecord) -> Option<&'static str> {
    match record {
        StorageRecord::Location(l) => {
            if !(seconds_ok(l.write_s) && seconds_ok(l.read_s)) {
                Some("write_s and read_s must be durations")
            } else if [l.random_iops, l.random_p50_ms, l.random_p99_ms]
                .iter()
                .flatten()
                .any(|v| !seconds_ok(*v))
            {
                Some("random-read figures must be non-negative numbers")
            } else {
                None
            }
        }
        StorageRecord::Upload(u) => match (u.seconds, &u.error) {
            (Some(s), _) if !seconds_ok(s) => Some("seconds must be a duration"),
            (None, None) => Some("an upload has either seconds or error"),
            _ => None,
        },
        StorageRecord::Drill(d) => (!(seconds_ok(d.cut_s)
            && seconds_ok(d.longest_wait_s)
            && d.recovered_after_s.is_none_or(seconds_ok)))
        .then_some("cut_s, longest_wait_s and recovered_after_s must be durations"),
    }
}

pub fn parse<R: BufRead>(input: R, _ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut header: Option<StorageHeader> = None;
    let mut summary = StorageSummary::default();
    while let Some(line) = lines.next_line()? {
        if line.text.trim().is_empty() {
            continue;
        }
        if header.is_none() {
            let h: StorageHeader = serde_json::from_str(line.text).map_err(|e| {
                LineError::new(
                    line.number,
                    Some(e.column()),
                    format!("not a storage log header: {e}"),
                )
            })?;
            if h.format != STORAGE_FORMAT || h.version != STORAGE_VERSION {
                return Err(ParseFailure::Line(LineError::new(
                    line.number,
                    None,
                    format!(
                        "{} version {} is not a storage log this version reads ({STORAGE_FORMAT} {STORAGE_VERSION})",
                        h.format, h.version
                    ),
                )));
            }
            b.host = h.host.clone();
            header = Some(h);
            continue;
        }
        match serde_json::from_str::<StorageRecord>(line.text) {
            Ok(r) => {
                if let Some(why) = implausible(&r) {
                    b.bad_line(&line, LineError::new(line.number, None, why))?;
                    continue;
                }
                match r {
                    StorageRecord::Location(l) => {
                        b.saw_time(l.t);
                        if let Some(why) = &l.cut_short {
                            b.warn(format!("{}: cut short ({why})", l.path));
                        }
                        summary.locations.push(l);
                    }
                    StorageRecord::Upload(u) => {
                        b.saw_time(u.t);
                        if let Some(e) = &u.error {
                            b.warn(format!("upload through \"{}\" failed: {e}", u.via));
                        }
                        summary.uploads.push(u);
                    }
                    StorageRecord::Drill(d) => {
                        b.saw_time(d.t);
                        summary.drills.push(d);
                    }
                }
            }
            Err(e) => b.bad_line(
                &line,
                LineError::new(
                    line.number,
                    Some(e.column()),
                    format!("not a storage record: {e}"),
                ),
            )?,
        }
    }
    if header.is_none() {
        return Err(ParseFailure::Whole("an empty storage log".into()));
    }
    let records = summary.locations.len() + summary.uploads.len() + summary.drills.len();
    if records == 0 {
        return Err(ParseFailure::Whole(
            "the storage log holds no measurement (stopped before the first location?)".into(),
        ));
    }
    b.metadata.insert(
        "storage".into(),
        serde_json::to_value(&summary).map_err(|e| ParseFailure::Whole(e.to_string()))?,
    );
    b.metadata_records += records as u64;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_speaks_in_rates_and_the_reference_checkpoint() {
        let l = LocationFigures {
            t: 0,
            path: "/mnt/data".into(),
            role: Role::Data,
            direct: true,
            bytes: 2_000_000_000,
            write_s: 10.0,
            read_s: 4.0,
            random_reads: 0,
            random_iops: None,
            random_p50_ms: None,
            random_p99_ms: None,
            cut_short: None,
        };
        assert_eq!(l.write_mb_s(), Some(200.0));
        assert_eq!(l.read_mb_s(), Some(500.0));
        assert_eq!(l.reference_write_s(), Some(100.0));
        let line = serde_json::to_string(&StorageRecord::Location(l.clone())).unwrap_or_default();
        assert!(line.starts_with("{\"kind\":\"location\""), "{line}");
        assert_eq!(
            serde_json::from_str::<StorageRecord>(&line).ok(),
            Some(StorageRecord::Location(l))
        );
    }

    #[test]
    fn outcomes_score_as_the_review_ranks_them() {
        assert_eq!(DrillOutcome::Continues.score(), Some(100.0));
        assert!(DrillOutcome::Stalls.score() > DrillOutcome::Fails.score());
        assert_eq!(DrillOutcome::NotRun.score(), None);
        assert_eq!(
            serde_json::to_string(&DrillOutcome::NotRun).unwrap_or_default(),
            "\"not-run\""
        );
    }
}
