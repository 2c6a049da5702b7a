//! The run under construction: what every parser feeds. It streams samples
//! into the store, keeps the small things (events, attempts, inventory,
//! warnings) in memory, and applies the bad-line policy in one place.

use std::collections::{BTreeMap, HashMap};

use super::lines::Line;
use crate::domain::{
    BillingLine, Event, EventKind, FaultDrill, GpuInfo, StartupAttempt, SwitchAttempt,
};
use crate::samples::Sample;
use crate::store::{SampleWriter, WriteSummary};

/// A line that cannot be read, located for the user (`file:line:column`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    pub line: u64,
    /// 1-based column (field number for CSV-like formats, character for text).
    pub column: Option<usize>,
    pub reason: String,
}

impl LineError {
    pub fn new(line: u64, column: Option<usize>, reason: impl Into<String>) -> Self {
        Self {
            line,
            column,
            reason: reason.into(),
        }
    }
}

/// Why parsing stopped.
#[derive(Debug)]
pub enum ParseFailure {
    Line(LineError),
    /// The file as a whole is unusable (no header, wrong document shape).
    Whole(String),
    Store(crate::Error),
    Io(std::io::Error),
}

impl From<LineError> for ParseFailure {
    fn from(e: LineError) -> Self {
        ParseFailure::Line(e)
    }
}

impl From<crate::Error> for ParseFailure {
    fn from(e: crate::Error) -> Self {
        ParseFailure::Store(e)
    }
}

impl From<std::io::Error> for ParseFailure {
    fn from(e: std::io::Error) -> Self {
        ParseFailure::Io(e)
    }
}

pub type ParseResult<T = ()> = Result<T, ParseFailure>;

/// How a GPU is named in a source.
#[derive(Debug, Clone, Copy)]
pub enum GpuKey<'a> {
    Index(u32),
    Uuid(&'a str),
    BusId(&'a str),
}

/// At most this many warnings are kept word for word; the rest are counted.
const MAX_WARNINGS: usize = 200;

pub struct RunBuilder<'s> {
    writer: SampleWriter<'s>,
    inventory: BTreeMap<u32, GpuInfo>,
    names: HashMap<String, u32>,
    pub events: Vec<Event>,
    pub startup_attempts: Vec<StartupAttempt>,
    pub switch_attempts: Vec<SwitchAttempt>,
    pub fault_drills: Vec<FaultDrill>,
    pub billing_lines: Vec<BillingLine>,
    pub metadata: serde_json::Map<String, serde_json::Value>,
    pub host: Option<String>,
    /// The sampling interval the source states (header, option).
    pub interval_ms: Option<u32>,
    warnings: Vec<String>,
    warnings_dropped: u64,
    skip_bad_lines: bool,
    pub skipped_lines: u64,
    pub records: u64,
    t_first: Option<i64>,
    t_last: Option<i64>,
    /// GPUs already in the inventory, by index: a vector look-up per
    /// sample instead of a map.
    seen: Vec<bool>,
}

impl<'s> RunBuilder<'s> {
    pub fn new(writer: SampleWriter<'s>, skip_bad_lines: bool, interval_ms: Option<u32>) -> Self {
        Self {
            writer,
            inventory: BTreeMap::new(),
            names: HashMap::new(),
            events: Vec::new(),
            startup_attempts: Vec::new(),
            switch_attempts: Vec::new(),
            fault_drills: Vec::new(),
            billing_lines: Vec::new(),
            metadata: serde_json::Map::new(),
            host: None,
            interval_ms,
            warnings: Vec::new(),
            warnings_dropped: 0,
            skip_bad_lines,
            skipped_lines: 0,
            records: 0,
            t_first: None,
            t_last: None,
            seen: Vec::new(),
        }
    }

    pub fn sample(&mut self, sample: Sample) -> ParseResult {
        self.t_first = Some(self.t_first.map_or(sample.t_ms, |t| t.min(sample.t_ms)));
        self.t_last = Some(self.t_last.map_or(sample.t_ms, |t| t.max(sample.t_ms)));
        let known = self.seen.get(sample.gpu as usize).copied().unwrap_or(false);
        if !known {
            self.ensure(sample.gpu);
            if self.seen.len() <= sample.gpu as usize {
                self.seen.resize(sample.gpu as usize + 1, false);
            }
            self.seen[sample.gpu as usize] = true;
        }
        self.writer.push(sample)?;
        Ok(())
    }

    /// Note a time seen in non-sample evidence, so the run's period covers it.
    pub fn saw_time(&mut self, t_ms: i64) {
        self.t_first = Some(self.t_first.map_or(t_ms, |t| t.min(t_ms)));
        self.t_last = Some(self.t_last.map_or(t_ms, |t| t.max(t_ms)));
    }

    pub fn event(&mut self, event: Event) {
        self.saw_time(event.at.as_millisecond());
        self.events.push(event);
    }

    /// The store index of a GPU named by index, UUID or PCI bus id. Sources
    /// that do not number GPUs get numbers in order of first appearance.
    pub fn gpu(&mut self, key: GpuKey<'_>) -> u32 {
        let (name, index) = match key {
            GpuKey::Index(i) => return self.ensure(i),
            GpuKey::Uuid(u) => (format!("uuid:{}", u.trim()), None),
            GpuKey::BusId(b) => (format!("bus:{}", normalise_bus_id(b)), None::<u32>),
        };
        if let Some(&i) = self.names.get(&name) {
            return i;
        }
        let i = index.unwrap_or_else(|| {
            (0..)
                .find(|i| !self.inventory.contains_key(i))
                .unwrap_or_default()
        });
        self.names.insert(name, i);
        let info = self.inventory.entry(i).or_insert_with(|| GpuInfo {
            index: i,
            ..GpuInfo::default()
        });
        match key {
            GpuKey::Uuid(u) => info.uuid = Some(u.trim().to_string()),
            GpuKey::BusId(b) => info.pci_bus_id = Some(b.trim().to_string()),
            GpuKey::Index(_) => {}
        }
        i
    }

    fn ensure(&mut self, i: u32) -> u32 {
        self.inventory.entry(i).or_insert_with(|| GpuInfo {
            index: i,
            ..GpuInfo::default()
        });
        i
    }

    /// Remember that `alias` (a UUID or bus id) names GPU `index`, and note
    /// it in the inventory.
    pub fn alias(&mut self, key: GpuKey<'_>, index: u32) {
        let name = match key {
            GpuKey::Index(_) => return,
            GpuKey::Uuid(u) => format!("uuid:{}", u.trim()),
            GpuKey::BusId(b) => format!("bus:{}", normalise_bus_id(b)),
        };
        if self.names.contains_key(&name) {
            return;
        }
        self.names.insert(name, index);
        let info = self.inventory(index);
        match key {
            GpuKey::Uuid(u) => {
                info.uuid.get_or_insert_with(|| u.trim().to_string());
            }
            GpuKey::BusId(b) => {
                info.pci_bus_id.get_or_insert_with(|| b.trim().to_string());
            }
            GpuKey::Index(_) => {}
        }
    }

    pub fn inventory(&mut self, gpu: u32) -> &mut GpuInfo {
        self.inventory.entry(gpu).or_insert_with(|| GpuInfo {
            index: gpu,
            ..GpuInfo::default()
        })
    }

    pub fn gpu_count(&self) -> usize {
        self.inventory.len()
    }

    pub fn warn(&mut self, message: impl Into<String>) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(message.into());
        } else {
            self.warnings_dropped += 1;
        }
    }

    /// Apply the bad-line policy: a cut-off last line is dropped with a
    /// warning; other bad lines stop the import unless the user asked to skip
    /// them, in which case each is recorded as a warning.
    pub fn bad_line(&mut self, line: &Line<'_>, error: LineError) -> ParseResult {
        if !line.terminated {
            self.warn(format!(
                "line {}: the last line is cut off ({}); it was ignored",
                error.line, error.reason
            ));
            return Ok(());
        }
        if self.skip_bad_lines {
            self.skipped_lines += 1;
            let column = error.column.map(|c| format!(":{c}")).unwrap_or_default();
            self.warn(format!(
                "line {}{column}: {} (skipped)",
                error.line, error.reason
            ));
            return Ok(());
        }
        Err(ParseFailure::Line(error))
    }

    pub fn span(&self) -> Option<(i64, i64)> {
        self.t_first.zip(self.t_last)
    }

    pub fn gap_event(gpu: u32, at_ms: i64, duration_ms: i64) -> Option<Event> {
        let at = jiff::Timestamp::from_millisecond(at_ms).ok()?;
        Some(Event {
            gpu: Some(gpu),
            duration_ms: Some(duration_ms),
            detail: Some(format!(
                "no samples for {:.1} s",
                duration_ms as f64 / 1000.0
            )),
            ..Event::new(at, EventKind::Gap)
        })
    }

    /// Store what is buffered and hand back everything else.
    pub fn finish(mut self) -> crate::Result<BuiltRun> {
        let written = self.writer.finish()?;
        if self.warnings_dropped > 0 {
            self.warnings
                .push(format!("{} more warnings not shown", self.warnings_dropped));
        }
        Ok(BuiltRun {
            written,
            inventory: self.inventory.into_values().collect(),
            events: self.events,
            startup_attempts: self.startup_attempts,
            switch_attempts: self.switch_attempts,
            fault_drills: self.fault_drills,
            billing_lines: self.billing_lines,
            metadata: self.metadata,
            host: self.host,
            interval_ms: self.interval_ms,
            warnings: self.warnings,
            skipped_lines: self.skipped_lines,
            records: self.records,
            span: self.t_first.zip(self.t_last),
        })
    }
}

/// What a finished builder holds, ready to be written to the run.
pub struct BuiltRun {
    pub written: WriteSummary,
    pub inventory: Vec<GpuInfo>,
    pub events: Vec<Event>,
    pub startup_attempts: Vec<StartupAttempt>,
    pub switch_attempts: Vec<SwitchAttempt>,
    pub fault_drills: Vec<FaultDrill>,
    pub billing_lines: Vec<BillingLine>,
    pub metadata: serde_json::Map<String, serde_json::Value>,
    pub host: Option<String>,
    pub interval_ms: Option<u32>,
    pub warnings: Vec<String>,
    pub skipped_lines: u64,
    pub records: u64,
    pub span: Option<(i64, i64)>,
}

/// "00000000:07:00.0" and "0000:07:00.0" name the same device.
fn normalise_bus_id(b: &str) -> String {
    let b = b.trim().to_ascii_lowercase();
    match b.split_once(':') {
        Some((domain, rest)) if domain.len() == 8 && domain.starts_with("0000") => {
            format!("{}:{rest}", &domain[4..])
        }
        _ => b,
    }
}
