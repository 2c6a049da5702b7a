//! Kernel logs — `dmesg` in its shapes, `journalctl -k`, `/var/log/kern.log`
//! and syslog — read for the NVIDIA driver's evidence of faults: Xid errors
//! (with their meaning and who is at fault, from `accelerator::xid`), GPUs
//! falling off the bus or failing to initialise, GSP and NVSwitch errors.
//!
//! Events name GPUs by PCI address. Indexes follow PCI order, as
//! nvidia-smi numbers GPUs; when the log shows the driver taking charge of
//! every GPU at load (`nvidia 0000:3b:00.0: …`) that order is the machine's,
//! otherwise only the GPUs the log names are numbered and a warning says so.
//!
//! Times: `dmesg`'s seconds since boot need the boot time — from `--start`,
//! or from the kernel's own "setting system clock to … (epoch)" line; syslog
//! lines carry no year — it comes from the journal's "-- Logs begin at …"
//! line, from `--start`, or from the file's modification time (with a
//! warning). Anything else is refused with that advice. Lines without a
//! time (a `grep` or `journalctl -o cat` excerpt) are placed at `--start`;
//! without it they are kept with the run and tallied, but are no events.
//!
//! Pasted fragments are read as they come: a terminal transcript's prompts
//! and commands are skipped, nvidia-smi's "cannot reach the GPU" lines
//! become lost GPUs, and a message the driver wrote over several lines
//! (the open kernel module's "The NVIDIA GPU … / … has / fallen off the
//! bus …") is read whole.
//!
//! Logs saved from a terminal are read as the terminal showed them: the
//! escape sequences that coloured them (`dmesg | grep --color` in a
//! `script` transcript) are taken out before anything is matched, and a
//! carriage return alone ends a line as a line feed does.

mod clock;
mod entry;
mod messages;

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;

use clock::{Clock, boot_time_ms, clock_set_to, journal_begins_year, synchronised_to};
use entry::{Entry, Style, When};
use messages::Message;
pub(crate) use messages::pci_address;

use super::super::ParseContext;
use super::super::builder::{GpuKey, LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::{LineReader, LoneCrBreaks};
use crate::accelerator::xid;
use crate::domain::{Event, EventKind};
use crate::transcript::strip_terminal_escapes;

/// Whether a line is in one of the kernel log shapes (for detection).
/// Detection splits lines at LF only, so a file whose lines end in CR
/// alone reaches it as one line: it is a kernel log line when most of its
/// CR-ended pieces are.
pub(crate) fn is_kernel_line(line: &str) -> bool {
    let line = strip_terminal_escapes(line);
    if !line.trim_end().contains('\r') {
        return entry::read(&line).is_some();
    }
    let (mut pieces, mut shaped) = (0, 0);
    for piece in line.split('\r').filter(|p| !p.trim().is_empty()) {
        pieces += 1;
        shaped += usize::from(entry::read(piece).is_some());
    }
    shaped > 0 && shaped * 2 > pieces
}

/// Whether `text` is what follows the time on a syslog or journal line
/// ("node1 kernel: NVRM: …", "node1 systemd[1]: …"): a host name, then a
/// program's tag and a colon. A time before such text is the line's own.
pub(crate) fn is_syslog_body(text: &str) -> bool {
    entry::syslog_tail(text).is_some_and(|(host, _)| !host.contains(':'))
}

/// Whether a line is the driver's (for detection: a syslog full of other
/// daemons is a kernel log only if the driver speaks in it).
pub(crate) fn mentions_driver(line: &str) -> bool {
    let line = strip_terminal_escapes(line);
    line.contains("NVRM:") || line.contains("nvidia")
}

/// A time as the line gave it, and where it stands among boots and years.
#[derive(Debug, Clone, Copy)]
struct Seen {
    when: When,
    line: u64,
    /// Which boot (raw dmesg: seconds since boot start again).
    boot: usize,
    /// How many times the month went backwards before this line (syslog:
    /// December to January is a new year).
    new_years: i64,
}

struct Finding {
    seen: Seen,
    message: Message,
}

#[derive(Default)]
struct Reading {
    /// A driver message begun on an earlier line and not yet complete.
    open: Option<(Seen, String)>,
    /// Lines of tools that could not reach a GPU, with their line number.
    unreachable: Vec<(u64, Message)>,
    style: Option<Style>,
    first: Option<Seen>,
    last: Option<Seen>,
    findings: Vec<Finding>,
    uuids: BTreeMap<String, String>,
    probed: BTreeSet<String>,
    /// Boot time (UTC ms) of each boot whose clock line was seen.
    boot_at: BTreeMap<usize, i64>,
    boot: usize,
    /// The first line of each boot, for raw dmesg.
    boot_first_line: BTreeMap<usize, u64>,
    last_uptime: f64,
    new_years: i64,
    last_month: u8,
    /// The year the journal's "-- Logs begin at …" line gives.
    journal_year: Option<i64>,
    host: Option<String>,
    entries: u64,
}

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(LoneCrBreaks::new(input));
    let mut r = Reading::default();
    while let Some(line) = lines.next_line()? {
        // `grep --color` cuts "NVRM: Xid" apart with escapes; matched as
        // the terminal showed it.
        let stripped = strip_terminal_escapes(line.text);
        let text: &str = &stripped;
        if let Some(year) = journal_begins_year(text) {
            r.journal_year.get_or_insert(year);
            continue;
        }
        // A piece of the message above, wrapped under it in a terminal.
        if text.starts_with([' ', '\t']) && r.open.is_some() {
            if let Some(rest) = text.trim().strip_prefix("NVRM: ") {
                r.continue_open(rest);
            }
            continue;
        }
        let entry = match entry::parse(text) {
            Ok(Some(entry)) => Some(entry),
            // The driver's line in a kernel log's shape, with a time that
            // cannot be read: a bad line (refused, or skipped with a warning
            // under --skip-bad-lines), never an Xid silently lost.
            Err(reason) if mentions_driver(text) => {
                b.bad_line(&line, LineError::new(line.number, None, reason))?;
                continue;
            }
            // Another daemon's line with a corrupt time says nothing of
            // the GPUs; read as it was before, as noise.
            Ok(None) | Err(_) => None,
        };
        let Some(entry) = entry else {
            if let Some(m) = crate::smi_messages::recognise(text) {
                let bus = match &m.lost {
                    crate::smi_messages::LostGpus::Bus(bus) => pci_address(bus),
                    crate::smi_messages::LostGpus::All => None,
                };
                r.unreachable
                    .push((line.number, Message::Unreachable { bus, text: m.text }));
            }
            continue;
        };
        if r.host.is_none() {
            r.host = entry.host.map(str::to_string).or_else(|| {
                (entry.style == Style::JournalJson)
                    .then(|| entry::json_host(text))
                    .flatten()
            });
        }
        let seen = r.place(&entry, line.number);
        r.entries += 1;
        r.style.get_or_insert(entry.style);
        if entry.when != When::Untimed {
            r.first.get_or_insert(seen);
            r.last = Some(seen);
        }
        if let (When::Uptime(uptime), Some(wall_ms)) = (seen.when, synchronised_to(&entry.message))
        {
            // The wall clock a time daemon set, at this many seconds since
            // boot: the boot's start, unless the kernel's own line gave it.
            let boot_ms = wall_ms - (uptime * 1000.0).round() as i64;
            if jiff::Timestamp::from_millisecond(boot_ms).is_ok() {
                r.boot_at.entry(seen.boot).or_insert(boot_ms);
            }
        }
        if let (When::Uptime(uptime), Some(epoch)) = (seen.when, clock_set_to(&entry.message)) {
            match epoch.and_then(|epoch_s| boot_time_ms(epoch_s, uptime)) {
                Ok(boot_ms) => {
                    r.boot_at.insert(seen.boot, boot_ms);
                }
                Err(reason) => b.bad_line(&line, LineError::new(line.number, None, reason))?,
            }
        }
        r.message(seen, &entry.message);
    }
    if r.entries == 0 {
        return Err(ParseFailure::Whole(
            "no kernel log lines found (dmesg, journalctl -k or syslog shapes)".into(),
        ));
    }
    let clock = Clock::new(&r, ctx, b)?;
    emit(&r, &clock, ctx, b)
}

impl Reading {
    /// What a line says, or what it completes: a message the driver wrote
    /// over several lines of the same moment is read when its last piece
    /// arrives.
    fn message(&mut self, seen: Seen, text: &str) {
        let alone = messages::recognise(text);
        if let Some((at, so_far)) = self.open.take()
            && at.when == seen.when
            && let Some(rest) = text.strip_prefix("NVRM: ")
            // A line that names its GPU is a message of its own.
            && alone.as_ref().and_then(finding_bus).is_none()
        {
            let joined = format!("{so_far} {}", rest.trim());
            if let Some(m) = messages::recognise(&joined) {
                self.found(at, m);
                return;
            }
            if alone.is_none() {
                if !finished(&joined) && joined.len() < 1024 {
                    self.open = Some((at, joined));
                }
                return;
            }
        }
        match alone {
            Some(m) => self.found(seen, m),
            None if opens_message(text) => self.open = Some((seen, text.to_string())),
            None => {}
        }
    }

    /// The next piece of the open message.
    fn continue_open(&mut self, rest: &str) {
        let Some((at, so_far)) = self.open.take() else {
            return;
        };
        let joined = format!("{so_far} {}", rest.trim());
        match messages::recognise(&joined) {
            Some(m) => self.found(at, m),
            // A message of a few lines, not a runaway join.
            None if !finished(&joined) && joined.len() < 1024 => self.open = Some((at, joined)),
            None => {}
        }
    }

    fn found(&mut self, seen: Seen, message: Message) {
        match message {
            Message::Uuid { bus, uuid } => {
                self.uuids.insert(bus, uuid);
            }
            Message::Probed { bus } => {
                self.probed.insert(bus);
            }
            message => self.findings.push(Finding { seen, message }),
        }
    }

    /// Where a line's time stands: a new boot when dmesg's seconds go back,
    /// a new year when syslog's month does.
    fn place(&mut self, entry: &Entry<'_>, line: u64) -> Seen {
        match entry.when {
            When::Uptime(secs) => {
                if secs + 1.0 < self.last_uptime {
                    self.boot += 1;
                }
                self.last_uptime = secs;
                self.boot_first_line.entry(self.boot).or_insert(line);
            }
            When::NoYear { month, .. } => {
                if month < self.last_month {
                    self.new_years += 1;
                }
                self.last_month = month;
            }
            When::Wall { .. } | When::Untimed => {}
        }
        Seen {
            when: entry.when,
            line,
            boot: self.boot,
            new_years: self.new_years,
        }
    }
}

/// A driver line that begins a message of several lines: it names a GPU
/// by its PCI address, says nothing recognised yet, and does not end a
/// sentence ("NVRM: The NVIDIA GPU 0000:b3:00.0").
fn opens_message(text: &str) -> bool {
    text.starts_with("NVRM: ")
        && !finished(text)
        && text.split_whitespace().any(|w| pci_address(w).is_some())
}

fn finished(text: &str) -> bool {
    text.trim_end().ends_with(['.', '!'])
}

fn emit(r: &Reading, clock: &Clock, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let (gpus, enumerated) = number_gpus(r, b);
    for at in [r.first, r.last].into_iter().flatten() {
        if let Some(t) = clock.utc_ms(at, ctx)? {
            b.saw_time(t);
        }
    }
    // A tool's "cannot reach the GPU" was printed when it was run: no
    // earlier than the last kernel line beside it.
    let end = match r.last {
        Some(last) => Some(last),
        None => r.findings.last().map(|f| f.seen),
    };
    let tool_lines = r.unreachable.iter().map(|(line, message)| {
        let at = end.unwrap_or(Seen {
            when: When::Untimed,
            line: *line,
            boot: 0,
            new_years: 0,
        });
        (Seen { line: *line, ..at }, message)
    });
    let findings = r.findings.iter().map(|f| (f.seen, &f.message));
    let mut tally = Tally::default();
    let mut untimed = Vec::new();
    for (seen, message) in findings.chain(tool_lines) {
        let t_ms = clock.utc_ms(seen, ctx)?;
        let gpu = finding_bus(message).and_then(|bus| b.known_gpu(GpuKey::BusId(bus)));
        let Some((kind, code, detail)) = tally.event_of(message, gpu, t_ms) else {
            continue;
        };
        let Some(t_ms) = t_ms else {
            // No time to place it at: kept with the run, and tallied.
            untimed.push(serde_json::json!({
                "line": seen.line, "gpu": gpu, "kind": kind.as_str(),
                "code": code, "detail": detail,
            }));
            continue;
        };
        let at = jiff::Timestamp::from_millisecond(t_ms)
            .map_err(|_| LineError::new(seen.line, None, "time out of range"))?;
        b.event(Event {
            gpu,
            code,
            detail: Some(detail),
            ..Event::new(at, kind)
        });
    }
    if !untimed.is_empty() {
        b.warn(format!(
            "{} kernel message(s) carry no time: kept with the run and in its Xid tally (a \
             fault still counts against its GPU), left out of rates and timelines",
            untimed.len()
        ));
        b.metadata_records += untimed.len() as u64;
    }
    let application = tally.application;
    if application > 0 {
        let errors = if application == 1 {
            "Xid error is an application fault"
        } else {
            "Xid errors are application faults"
        };
        b.warn(format!(
            "{application} {errors} (the program's, not the platform's): shown, not \
             counted against the platform"
        ));
    }
    let counts = tally.counts;
    let observed = enumerated.then_some(gpus);
    b.host = b.host.take().or_else(|| r.host.clone());
    let mut meta = serde_json::Map::new();
    if let Some(style) = r.style {
        meta.insert("saved_as".into(), style.label().into());
    }
    meta.insert(
        "xid_counts".into(),
        counts
            .iter()
            .map(|(code, n)| (code.to_string(), serde_json::Value::from(*n)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
    );
    if let Some(gpus) = observed {
        // The whole machine was seen for the whole log: the exposure that
        // turns its interruptions into a rate.
        meta.insert("observed_gpus".into(), gpus.into());
    }
    if !untimed.is_empty() {
        meta.insert("untimed".into(), untimed.into());
    }
    b.metadata.insert("kernel_log".into(), meta.into());
    Ok(())
}

/// Number the GPUs the log names in PCI order, as nvidia-smi does, with
/// their UUIDs where the driver gave them. Returns how many, and whether
/// the log shows the driver finding every one (the machine's whole count).
fn number_gpus(r: &Reading, b: &mut RunBuilder<'_>) -> (usize, bool) {
    let mut buses: BTreeSet<&str> = r.probed.iter().map(String::as_str).collect();
    buses.extend(r.uuids.keys().map(String::as_str));
    for message in r
        .findings
        .iter()
        .map(|f| &f.message)
        .chain(r.unreachable.iter().map(|(_, m)| m))
    {
        if let Some(bus) = finding_bus(message) {
            buses.insert(bus);
        }
    }
    for bus in &buses {
        let gpu = b.gpu(GpuKey::BusId(bus));
        if let Some(uuid) = r.uuids.get(*bus) {
            b.alias(GpuKey::Uuid(uuid), gpu);
        }
    }
    let enumerated = !r.probed.is_empty() && buses.iter().all(|bus| r.probed.contains(*bus));
    if !buses.is_empty() && !enumerated {
        b.warn(
            "the log does not show the driver finding every GPU, so GPU numbers follow the \
             PCI order of the GPUs it names, which may not be nvidia-smi's; the PCI addresses \
             are kept",
        );
    }
    (buses.len(), enumerated)
}

/// Incidents recorded, by GPU and time (`None`: a message without one).
type Incidents = Vec<(Option<u32>, Option<i64>)>;

/// What the findings add up to as they become events: incidents already
/// recorded per GPU (so that one fault's several messages are one event),
/// Xid counts, application faults.
#[derive(Default)]
struct Tally {
    lost: Vec<(Option<u32>, Option<i64>)>,
    init_failed: Vec<(Option<u32>, Option<i64>)>,
    counts: BTreeMap<u32, u64>,
    application: u64,
    /// Each Xid reported as itself, by code, per GPU and time; and each
    /// counted through a later message that named it as its cause. A
    /// message naming a cause already counted on that GPU, or an Xid
    /// already counted through its consequence, is the same incident.
    xids: BTreeMap<u32, Incidents>,
    caused: BTreeMap<u32, Incidents>,
}

impl Tally {
    /// The event a finding makes (kind, code, detail); `None` when it is
    /// part of an incident already recorded, or no event at all.
    fn event_of(
        &mut self,
        message: &Message,
        gpu: Option<u32>,
        t_ms: Option<i64>,
    ) -> Option<(EventKind, Option<i64>, String)> {
        Some(match message {
            Message::Xid { code, text, .. } if messages::named_cause(text).is_some() => {
                // "Xid 45 … caused by previous Xid 149": the cleanup after
                // an NVLink fault is that fault, counted once per GPU
                // however many of its messages follow.
                let cause = messages::named_cause(text)?;
                let seen = |m: &BTreeMap<u32, Incidents>| {
                    m.get(&cause).is_some_and(|s| near(s, gpu, t_ms))
                };
                if seen(&self.xids) || seen(&self.caused) {
                    return None;
                }
                self.caused.entry(cause).or_default().push((gpu, t_ms));
                *self.counts.entry(cause).or_default() += 1;
                if cause == 79 {
                    self.lost.push((gpu, t_ms));
                }
                let reported = format!("reported as Xid {code}");
                (
                    EventKind::Xid,
                    Some(i64::from(cause)),
                    detail(
                        &format!("{} ({reported})", xid::describe(i64::from(cause))),
                        text,
                    ),
                )
            }
            Message::Xid { code, text, .. } => {
                if self
                    .caused
                    .get(code)
                    .is_some_and(|seen| near(seen, gpu, t_ms))
                {
                    // Already counted through the message that named it.
                    return None;
                }
                self.xids.entry(*code).or_default().push((gpu, t_ms));
                *self.counts.entry(*code).or_default() += 1;
                if *code == 79 {
                    self.lost.push((gpu, t_ms));
                }
                if !xid::counts_against_platform(Some(i64::from(*code)))
                    && xid::interrupts(Some(i64::from(*code)))
                {
                    self.application += 1;
                }
                (
                    EventKind::Xid,
                    Some(i64::from(*code)),
                    detail(&xid::describe(i64::from(*code)), text),
                )
            }
            Message::FellOffBus { .. } => {
                if near(&self.lost, gpu, t_ms) {
                    return None;
                }
                self.lost.push((gpu, t_ms));
                (
                    EventKind::GpuLost,
                    None,
                    "kernel: GPU has fallen off the bus".into(),
                )
            }
            Message::Unreachable { text, .. } => {
                if near(&self.lost, gpu, t_ms) {
                    return None;
                }
                self.lost.push((gpu, t_ms));
                (
                    EventKind::GpuLost,
                    None,
                    format!(
                        "nvidia-smi cannot reach the GPU: {}",
                        crate::text::printable_excerpt(text, 160)
                    ),
                )
            }
            Message::InitFailed { text, .. } => {
                if near(&self.init_failed, gpu, t_ms) {
                    return None;
                }
                self.init_failed.push((gpu, t_ms));
                (
                    EventKind::GpuLost,
                    None,
                    detail("the driver could not initialise the GPU", text),
                )
            }
            Message::Gsp { text, .. } => (EventKind::Note, None, detail("GSP firmware", text)),
            Message::SXid { code, text } => (
                EventKind::Note,
                Some(i64::from(*code)),
                detail(&format!("NVSwitch SXid {code}"), text),
            ),
            Message::Uuid { .. } | Message::Probed { .. } => return None,
        })
    }
}

fn finding_bus(message: &Message) -> Option<&str> {
    match message {
        Message::Xid { bus, .. }
        | Message::FellOffBus { bus }
        | Message::InitFailed { bus, .. }
        | Message::Gsp { bus, .. } => bus.as_deref(),
        Message::Uuid { bus, .. } | Message::Probed { bus } => Some(bus),
        Message::Unreachable { bus, .. } => bus.as_deref(),
        Message::SXid { .. } => None,
    }
}

/// Whether a GPU's incident was already recorded this close in time (two
/// messages without a time are of the same moment).
fn near(seen: &[(Option<u32>, Option<i64>)], gpu: Option<u32>, t_ms: Option<i64>) -> bool {
    seen.iter().any(|(g, t)| {
        *g == gpu
            && match (t, t_ms) {
                (Some(a), Some(b)) => a.abs_diff(b) <= xid::SAME_INCIDENT_MS.unsigned_abs(),
                (None, None) => true,
                _ => false,
            }
    })
}

/// "Xid 79: GPU has fallen off the bus (fatal, platform fault) — driver:
/// pid=0, …": the meaning first, the driver's words after, bounded.
fn detail(meaning: &str, driver_said: &str) -> String {
    if driver_said.is_empty() {
        return meaning.to_string();
    }
    let said = crate::text::printable_excerpt(driver_said, 160);
    format!("{meaning} — driver: {said}")
}

#[cfg(test)]
mod tests;
