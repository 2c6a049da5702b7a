//! The run under construction: what every parser feeds. It hands samples to
//! a sink as they are read, keeps the small things (events, attempts,
//! inventory, warnings) in memory, and applies the bad-line policy in one
//! place.

use std::collections::{BTreeMap, HashMap};

use super::lines::Line;
use crate::domain::{
    BillingLine, Event, EventKind, FaultDrill, GpuInfo, PriceQuote, StartupAttempt, SwitchAttempt,
};
use crate::samples::Sample;

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
    /// The text is well formed and holds nothing to store (a range answer
    /// without a series Breakpoint reads, or only NaN): the caller decides
    /// whether that is an error (a file) or a quiet stretch (a pull).
    Empty(String),
    /// Where the samples go failed (the store: a full disk, a lock).
    Sink(SinkError),
    Io(std::io::Error),
    /// The log is already held by this run (found once it was read whole):
    /// failing undoes what was written of it.
    AlreadyImported {
        run_id: i64,
        matched: crate::domain::Duplicate,
    },
}

impl From<LineError> for ParseFailure {
    fn from(e: LineError) -> Self {
        ParseFailure::Line(e)
    }
}

impl From<SinkError> for ParseFailure {
    fn from(e: SinkError) -> Self {
        ParseFailure::Sink(e)
    }
}

/// Where a run's samples go as they are read, in the order the log gives
/// them. The core's store encodes them into chunks; tests and fuzz targets
/// keep them in a `Vec`.
pub trait SampleSink {
    fn push(&mut self, sample: &Sample) -> Result<(), SinkError>;

    /// A bill line read at `line`. A sink that stores it now says
    /// [`BillLineTaken::Taken`], and the run being built keeps nothing of
    /// it: a bill of millions of lines is streamed, not held. The default
    /// leaves it to the run to keep (tests, fuzzing).
    fn bill_line(&mut self, _bill: &BillingLine, _line: u64) -> Result<BillLineTaken, SinkError> {
        Ok(BillLineTaken::Held)
    }
}

/// What a sink did with a bill line handed to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BillLineTaken {
    /// Left to the run being built to keep.
    Held,
    /// Stored by the sink, or left out by it as held already.
    Taken,
    /// Its provider line id was on line `first` of the same bill.
    Repeated { first: u64 },
}

impl SampleSink for Vec<Sample> {
    fn push(&mut self, sample: &Sample) -> Result<(), SinkError> {
        Vec::push(self, *sample);
        Ok(())
    }
}

/// A sink's failure, carried through the parser untouched: the sink's
/// owner takes its own error back out ([`SinkError::into_inner`]).
#[derive(Debug)]
pub struct SinkError(Box<dyn std::error::Error + Send + Sync>);

impl SinkError {
    pub fn new(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        SinkError(Box::new(e))
    }

    pub fn into_inner(self) -> Box<dyn std::error::Error + Send + Sync> {
        self.0
    }
}

impl std::fmt::Display for SinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
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

/// GPU indexes whose last aliases are kept for the one-compare check.
const MAX_ALIASED: usize = 1024;

/// A UUID (kind 0) or bus id (kind 1) as the log wrote it, for the caches
/// of names as written; `None` for an index.
fn as_written(key: GpuKey<'_>) -> Option<(usize, &str)> {
    match key {
        GpuKey::Index(_) => None,
        GpuKey::Uuid(u) => Some((0, u)),
        GpuKey::BusId(b) => Some((1, b)),
    }
}

/// At most this many warnings are kept word for word; the rest are counted.
const MAX_WARNINGS: usize = 200;

pub struct RunBuilder<'s> {
    sink: &'s mut dyn SampleSink,
    inventory: BTreeMap<u32, GpuInfo>,
    names: HashMap<String, u32>,
    /// UUIDs and bus ids as written, with the GPU `names` holds for them:
    /// a log that names its GPUs in every row (`index, uuid, pci.bus_id`)
    /// finds each row's GPU without normalising and formatting its name
    /// again (3 000 instructions a row).
    written_names: [HashMap<String, u32>; 2],
    /// The UUID and bus id each GPU index was last given as an alias, as
    /// written: the same again is known at one compare of its bytes.
    aliased: Vec<[String; 2]>,
    pub events: Vec<Event>,
    pub startup_attempts: Vec<StartupAttempt>,
    pub switch_attempts: Vec<SwitchAttempt>,
    pub fault_drills: Vec<FaultDrill>,
    pub billing_lines: Vec<BillingLine>,
    /// Prices a catalog or price answer states.
    pub price_quotes: Vec<PriceQuote>,
    pub metadata: serde_json::Map<String, serde_json::Value>,
    pub host: Option<String>,
    /// The sampling interval the source states (header, option).
    pub interval_ms: Option<u32>,
    warnings: Vec<String>,
    warnings_dropped: u64,
    skip_bad_lines: bool,
    pub skipped_lines: u64,
    /// Records kept in the run's metadata rather than in tables of their
    /// own (health-check results, listed devices): counted in the report.
    pub metadata_records: u64,
    t_first: Option<i64>,
    t_last: Option<i64>,
    /// GPUs already in the inventory, by index: a vector look-up per
    /// sample instead of a map.
    seen: Vec<bool>,
    /// Each GPU's latest sample time so far, and how many samples came
    /// earlier than the one before them (rows newest first, or shuffled).
    last_t: Vec<i64>,
    pub backward_steps: u64,
    pub samples_seen: u64,
    /// Losses still open, so that a sampling loop repeating the same
    /// complaint records one loss, not one per line.
    lost: Vec<OpenLoss>,
    /// Losses reported before any time was seen: stamped with the next.
    lost_untimed: Vec<(Loss, String)>,
    /// Each provider line id of the bill so far, and the line it was on
    /// (lines the run keeps; a sink that takes them checks its own).
    bill_line_ids: HashMap<String, u64>,
    /// Bill lines the sink took.
    pub bill_lines_taken: u64,
    /// The sink's failure while a line was handed to it: the parse stops
    /// with it at the next bad line or at its end, whatever a line's error
    /// said (no `--skip-bad-lines` may skip a full disk).
    sink_failed: Option<SinkError>,
}

/// Which GPUs a loss is about, as far as the source lets us tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loss {
    Gpu(u32),
    /// A GPU the source names only by something the run does not map to
    /// an index (a bus id in a file without a bus id column).
    Unmapped(String),
    All,
}

struct OpenLoss {
    loss: Loss,
    /// Index into `events` of the `gpu-lost` event that recorded it.
    event: usize,
    last_ms: i64,
}

/// A repeat of a loss within this long of the last one continues it, when
/// the source states no interval (nvidia-smi retries for seconds before it
/// gives up on a GPU).
const LOSS_REPEAT_MS: i64 = 60_000;

impl<'s> RunBuilder<'s> {
    pub fn new(
        sink: &'s mut dyn SampleSink,
        skip_bad_lines: bool,
        interval_ms: Option<u32>,
    ) -> Self {
        Self {
            sink,
            inventory: BTreeMap::new(),
            names: HashMap::new(),
            written_names: [HashMap::new(), HashMap::new()],
            aliased: Vec::new(),
            events: Vec::new(),
            startup_attempts: Vec::new(),
            switch_attempts: Vec::new(),
            fault_drills: Vec::new(),
            billing_lines: Vec::new(),
            price_quotes: Vec::new(),
            metadata: serde_json::Map::new(),
            host: None,
            interval_ms,
            warnings: Vec::new(),
            warnings_dropped: 0,
            skip_bad_lines,
            skipped_lines: 0,
            metadata_records: 0,
            t_first: None,
            t_last: None,
            bill_line_ids: HashMap::new(),
            bill_lines_taken: 0,
            sink_failed: None,
            seen: Vec::new(),
            last_t: Vec::new(),
            backward_steps: 0,
            samples_seen: 0,
            lost: Vec::new(),
            lost_untimed: Vec::new(),
        }
    }

    /// A bill line read on `line`. A provider's line id names one line: a
    /// second line with the same id (two exports joined, a line repeated)
    /// is refused, naming both lines (`column`: the id's). Handed to the
    /// sink first, which may store it at once.
    pub fn add_billing_line(
        &mut self,
        bill: BillingLine,
        line: u64,
        column: Option<usize>,
    ) -> Result<(), LineError> {
        let repeated = |id: &str, first: u64| {
            LineError::new(
                line,
                column,
                format!(
                    "the line id \"{id}\" was already on line {first}: a bill names each line once (two exports joined, or one line repeated)"
                ),
            )
        };
        match self.sink.bill_line(&bill, line) {
            Ok(BillLineTaken::Held) => {}
            Ok(BillLineTaken::Taken) => {
                self.bill_lines_taken += 1;
                self.saw_time(bill.start.as_millisecond());
                self.saw_time(bill.end.as_millisecond());
                return Ok(());
            }
            Ok(BillLineTaken::Repeated { first }) => {
                return Err(repeated(bill.line_id.as_deref().unwrap_or_default(), first));
            }
            Err(e) => {
                self.sink_failed = Some(e);
                return Err(LineError::new(line, None, "the store failed"));
            }
        }
        if let Some(id) = &bill.line_id {
            if let Some(first) = self.bill_line_ids.get(id) {
                return Err(repeated(id, *first));
            }
            self.bill_line_ids.insert(id.clone(), line);
        }
        self.saw_time(bill.start.as_millisecond());
        self.saw_time(bill.end.as_millisecond());
        self.billing_lines.push(bill);
        Ok(())
    }

    /// The sink's failure, where one stopped a line: the parse's real error.
    pub fn sink_failure(&mut self) -> Option<ParseFailure> {
        self.sink_failed.take().map(ParseFailure::Sink)
    }

    /// A price a catalog states, validated; its time (where it has one)
    /// is part of the run's period.
    pub fn price_quote(&mut self, quote: PriceQuote) -> Result<(), String> {
        let quote = quote.validate().map_err(|e| e.to_string())?;
        if let Some(at) = quote.observed_at {
            self.saw_time(at.as_millisecond());
        }
        self.price_quotes.push(quote);
        Ok(())
    }

    #[inline]
    pub fn sample(&mut self, sample: &Sample) -> ParseResult {
        if !self.lost_untimed.is_empty() {
            for (loss, detail) in std::mem::take(&mut self.lost_untimed) {
                self.gpu_lost(loss, Some(sample.t_ms), detail);
            }
        }
        if !self.lost.is_empty() && !sample.is_empty() {
            self.recovered(sample.gpu, sample.t_ms);
        }
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
        let g = sample.gpu as usize;
        if self.last_t.len() <= g {
            self.last_t.resize(g + 1, i64::MIN);
        }
        if sample.t_ms < self.last_t[g] {
            self.backward_steps += 1;
        }
        self.last_t[g] = sample.t_ms;
        self.samples_seen += 1;
        self.sink.push(sample)?;
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

    /// A GPU (or all of them) could not be read at `at_ms` (the last time
    /// seen when the source gives none). Returns whether this is a new loss:
    /// a repeat within three sampling intervals (a minute when the interval
    /// is unknown) of the same loss only extends the open event, and a
    /// reading from the GPU closes it, setting the event's duration.
    pub fn gpu_lost(&mut self, loss: Loss, at_ms: Option<i64>, detail: String) -> bool {
        let Some(at_ms) = at_ms.or(self.t_last) else {
            let new = !self.lost_untimed.iter().any(|(l, _)| *l == loss);
            if new {
                self.lost_untimed.push((loss, detail));
            }
            return new;
        };
        self.saw_time(at_ms);
        let window = self
            .interval_ms
            .map_or(LOSS_REPEAT_MS, |i| 3 * i64::from(i).max(1));
        if let Some(open) = self
            .lost
            .iter_mut()
            .find(|o| (o.loss == loss || o.loss == Loss::All) && at_ms - o.last_ms <= window)
        {
            open.last_ms = open.last_ms.max(at_ms);
            let event = &mut self.events[open.event];
            event.duration_ms = Some(open.last_ms - event.at.as_millisecond());
            return false;
        }
        let Ok(at) = jiff::Timestamp::from_millisecond(at_ms) else {
            return false;
        };
        self.lost.retain(|o| o.loss != loss);
        self.lost.push(OpenLoss {
            loss: loss.clone(),
            event: self.events.len(),
            last_ms: at_ms,
        });
        self.event(Event {
            gpu: match loss {
                Loss::Gpu(g) => Some(g),
                Loss::Unmapped(_) | Loss::All => None,
            },
            detail: Some(detail),
            ..Event::new(at, EventKind::GpuLost)
        });
        true
    }

    /// A reading from `gpu` ends its loss and any loss of every GPU.
    fn recovered(&mut self, gpu: u32, t_ms: i64) {
        let events = &mut self.events;
        self.lost.retain(|o| {
            let ends = o.loss == Loss::Gpu(gpu) || o.loss == Loss::All;
            if ends {
                let event = &mut events[o.event];
                event.duration_ms = Some((t_ms - event.at.as_millisecond()).max(0));
            }
            !ends
        });
    }

    /// The index of a GPU the run already knows by this name, without
    /// adding one.
    pub fn known_gpu(&self, key: GpuKey<'_>) -> Option<u32> {
        let name = match key {
            GpuKey::Index(i) => return self.inventory.contains_key(&i).then_some(i),
            GpuKey::Uuid(u) => format!("uuid:{}", u.trim()),
            GpuKey::BusId(b) => format!("bus:{}", normalise_bus_id(b)),
        };
        self.names.get(&name).copied().or_else(|| match key {
            GpuKey::BusId(b) => {
                let wanted = normalise_bus_id(b);
                self.inventory
                    .values()
                    .find(|g| {
                        g.pci_bus_id
                            .as_deref()
                            .is_some_and(|own| normalise_bus_id(own) == wanted)
                    })
                    .map(|g| g.index)
            }
            GpuKey::Uuid(u) => self
                .inventory
                .values()
                .find(|g| g.uuid.as_deref().is_some_and(|own| own.trim() == u.trim()))
                .map(|g| g.index),
            GpuKey::Index(_) => None,
        })
    }

    /// An nvidia-smi complaint found between the rows (see `smi_messages`):
    /// a `gpu-lost` event, and a warning naming the line for each new loss.
    pub fn smi_message(&mut self, line: u64, message: super::smi_messages::SmiMessage) {
        use super::smi_messages::LostGpus;
        let loss = match &message.lost {
            LostGpus::All => Loss::All,
            LostGpus::Bus(bus) => self
                .known_gpu(GpuKey::BusId(bus))
                .map_or_else(|| Loss::Unmapped(normalise_bus_id(bus)), Loss::Gpu),
        };
        let detail = format!("nvidia-smi: {}", message.text);
        if self.gpu_lost(loss, None, detail) {
            self.warn(format!(
                "line {line}: nvidia-smi could not read the GPU(s) (\"{}\"); stored as a gpu-lost event",
                message.text
            ));
        }
    }

    /// The store index of a GPU named by index, UUID or PCI bus id. Sources
    /// that do not number GPUs get numbers in order of first appearance.
    pub fn gpu(&mut self, key: GpuKey<'_>) -> u32 {
        if let Some(i) = self.written_gpu(key) {
            return i;
        }
        let (name, index) = match key {
            GpuKey::Index(i) => return self.ensure(i),
            GpuKey::Uuid(u) => (format!("uuid:{}", u.trim()), None),
            GpuKey::BusId(b) => (format!("bus:{}", normalise_bus_id(b)), None::<u32>),
        };
        if let Some(&i) = self.names.get(&name) {
            self.remember_written(key, i);
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
        self.remember_written(key, i);
        i
    }

    /// The GPU a UUID or bus id, written exactly so, was found to name.
    #[inline]
    fn written_gpu(&self, key: GpuKey<'_>) -> Option<u32> {
        let (kind, written) = as_written(key)?;
        self.written_names[kind].get(written).copied()
    }

    /// `key`, as written, names GPU `i` in `names`.
    fn remember_written(&mut self, key: GpuKey<'_>, i: u32) {
        if let Some((kind, written)) = as_written(key) {
            self.written_names[kind].insert(written.to_string(), i);
        }
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
        let Some((kind, written)) = as_written(key) else {
            return;
        };
        if let Some(last) = self.aliased.get(index as usize)
            && last[kind] == written
        {
            return;
        }
        if (index as usize) < MAX_ALIASED {
            if self.aliased.len() <= index as usize {
                self.aliased
                    .resize_with(index as usize + 1, Default::default);
            }
            written.clone_into(&mut self.aliased[index as usize][kind]);
        }
        // Written so before: its name is in `names` already, which the
        // first alias or lookup of it decided.
        if self.written_gpu(key).is_some() {
            return;
        }
        let name = match key {
            GpuKey::Index(_) => return,
            GpuKey::Uuid(u) => format!("uuid:{}", u.trim()),
            GpuKey::BusId(b) => format!("bus:{}", normalise_bus_id(b)),
        };
        if let Some(&named) = self.names.get(&name) {
            self.remember_written(key, named);
            return;
        }
        self.names.insert(name, index);
        self.remember_written(key, index);
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

    /// Keep a warning for the run. It is stored and shown, so it is bounded
    /// and printable whatever line of input it quotes.
    pub fn warn(&mut self, message: impl Into<String>) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings
                .push(crate::text::bounded_message(&message.into()));
        } else {
            self.warnings_dropped += 1;
        }
    }

    /// Apply the bad-line policy: a cut-off last line is dropped with a
    /// warning; other bad lines stop the import unless the user asked to skip
    /// them, in which case each is recorded as a warning.
    pub fn bad_line(&mut self, line: &Line<'_>, error: LineError) -> ParseResult {
        if let Some(failure) = self.sink_failure() {
            return Err(failure);
        }
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

    /// Everything but the samples, which went to the sink.
    pub fn finish(mut self) -> BuiltRun {
        if self.warnings_dropped > 0 {
            self.warnings
                .push(format!("{} more warnings not shown", self.warnings_dropped));
        }
        BuiltRun {
            inventory: self.inventory.into_values().collect(),
            events: self.events,
            startup_attempts: self.startup_attempts,
            switch_attempts: self.switch_attempts,
            fault_drills: self.fault_drills,
            billing_lines: self.billing_lines,
            bill_lines_taken: self.bill_lines_taken,
            price_quotes: self.price_quotes,
            metadata: self.metadata,
            host: self.host,
            interval_ms: self.interval_ms,
            warnings: self.warnings,
            skipped_lines: self.skipped_lines,
            metadata_records: self.metadata_records,
            span: self.t_first.zip(self.t_last),
            backward_steps: self.backward_steps,
            samples_seen: self.samples_seen,
        }
    }
}

/// What a finished builder holds, ready to be written to the run.
pub struct BuiltRun {
    pub inventory: Vec<GpuInfo>,
    pub events: Vec<Event>,
    pub startup_attempts: Vec<StartupAttempt>,
    pub switch_attempts: Vec<SwitchAttempt>,
    pub fault_drills: Vec<FaultDrill>,
    pub billing_lines: Vec<BillingLine>,
    /// Bill lines the sink took rather than the run (stored as read).
    pub bill_lines_taken: u64,
    pub price_quotes: Vec<PriceQuote>,
    pub metadata: serde_json::Map<String, serde_json::Value>,
    pub host: Option<String>,
    pub interval_ms: Option<u32>,
    pub warnings: Vec<String>,
    pub skipped_lines: u64,
    pub metadata_records: u64,
    pub span: Option<(i64, i64)>,
    pub backward_steps: u64,
    pub samples_seen: u64,
}

/// "00000000:07:00.0" and "0000:07:00.0" name the same device.
pub fn normalise_bus_id(b: &str) -> String {
    let b = b.trim().to_ascii_lowercase();
    match b.split_once(':') {
        Some((domain, rest)) if domain.len() == 8 && domain.starts_with("0000") => {
            format!("{}:{rest}", &domain[4..])
        }
        _ => b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_written_again_find_the_gpu_they_named_first() {
        let mut samples: Vec<Sample> = Vec::new();
        let mut b = RunBuilder::new(&mut samples, false, None);
        b.alias(GpuKey::Uuid("GPU-aaaa"), 0);
        b.alias(GpuKey::BusId("00000000:07:00.0"), 0);
        // The same names given to another index, however written: the
        // first holds.
        b.alias(GpuKey::Uuid("GPU-aaaa"), 1);
        b.alias(GpuKey::Uuid(" GPU-aaaa "), 1);
        assert_eq!(b.gpu(GpuKey::Uuid("GPU-aaaa")), 0);
        assert_eq!(b.gpu(GpuKey::Uuid("GPU-aaaa ")), 0);
        assert_eq!(b.gpu(GpuKey::BusId("0000:07:00.0")), 0);
        // Another name for each index, then index 0's first one again.
        b.alias(GpuKey::Uuid("GPU-bbbb"), 1);
        b.alias(GpuKey::Uuid("GPU-cccc"), 0);
        b.alias(GpuKey::Uuid("GPU-aaaa"), 0);
        b.alias(GpuKey::Uuid("GPU-bbbb"), 0);
        assert_eq!(b.gpu(GpuKey::Uuid("GPU-bbbb")), 1);
        assert_eq!(b.gpu(GpuKey::Uuid("GPU-cccc")), 0);
        assert_eq!(b.gpu(GpuKey::Uuid("GPU-aaaa")), 0);
        // A name never seen is a GPU of its own, numbered after those known.
        assert_eq!(b.known_gpu(GpuKey::Uuid("GPU-dddd")), None);
        assert_eq!(b.gpu(GpuKey::Uuid("GPU-dddd")), 2);
        assert_eq!(b.gpu(GpuKey::Uuid("GPU-dddd")), 2);
        assert_eq!(b.known_gpu(GpuKey::Uuid(" GPU-dddd")), Some(2));
        let built = b.finish();
        let uuids: Vec<_> = built
            .inventory
            .iter()
            .map(|g| (g.index, g.uuid.clone(), g.pci_bus_id.clone()))
            .collect();
        assert_eq!(
            uuids,
            [
                (0, Some("GPU-aaaa".into()), Some("00000000:07:00.0".into())),
                (1, Some("GPU-bbbb".into()), None),
                (2, Some("GPU-dddd".into()), None),
            ]
        );
    }
}
