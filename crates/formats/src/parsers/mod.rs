//! One module per format. Each reads a stream into a [`RunBuilder`]; shared
//! cell splitting lives here.

mod amd;
pub mod bill_export;
pub(crate) mod cmax_audit;
mod cnmon;
pub(crate) mod dcgm_diag;
mod dcgm_fields;
mod dmon;
pub mod drift_log;
mod gpustat;
pub(crate) mod health_checks;
pub(crate) mod kernel_log;
pub(crate) mod launch_records;
pub(crate) mod lspci;
mod memory_health;
pub mod network_log;
mod npu_smi;
pub mod perf_log;
pub(crate) mod price_catalogs;
mod probe_log;
mod prometheus;
mod script_log;
mod smi_csv;
pub(crate) mod smi_query;
mod smi_table;
mod smi_xml;
pub(crate) mod spot_advisor;
pub(crate) mod spot_trace;
pub mod storage_log;
mod tables;

use std::io::BufRead;

pub use probe_log::{PROBE_FORMAT, PROBE_VERSION, ProbeHeader, ProbeRecord};

use super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::{Format, ParseContext};

pub fn parse<R: BufRead>(
    format: Format,
    input: R,
    ctx: &mut ParseContext,
    b: &mut RunBuilder<'_>,
) -> ParseResult {
    match format {
        Format::ProbeLog => probe_log::parse(input, ctx, b),
        Format::NetworkLog => network_log::parse(input, ctx, b),
        Format::StorageLog => storage_log::parse(input, ctx, b),
        Format::DriftLog => drift_log::parse(input, ctx, b),
        Format::PerfLog => perf_log::parse(input, ctx, b),
        Format::BillExport => bill_export::parse(input, ctx, b),
        Format::SkypilotCatalog => price_catalogs::parse_skypilot(input, ctx, b),
        Format::GpuhuntCatalog => price_catalogs::parse_gpuhunt(input, ctx, b),
        Format::AwsPriceList => price_catalogs::parse_aws_price_list(input, ctx, b),
        Format::AliyunPrice => price_catalogs::parse_aliyun(input, ctx, b),
        Format::TencentPrice => price_catalogs::parse_tencent(input, ctx, b),
        Format::HuaweiPrice => price_catalogs::parse_huawei(input, ctx, b),
        Format::SpotTrace => spot_trace::parse(input, ctx, b),
        Format::SpotAdvisor => spot_advisor::parse(input, ctx, b),
        Format::SkyTimeline => launch_records::parse_sky_timeline(input, ctx, b),
        Format::SkyJobs => launch_records::parse_sky_jobs(input, ctx, b),
        Format::SkyLaunchLog => launch_records::parse_sky_launch_log(input, ctx, b),
        Format::DstackEvents => launch_records::parse_dstack(input, ctx, b),
        Format::NcclTests => health_checks::parse_nccl(input, ctx, b),
        Format::Perftest => health_checks::parse_perftest(input, ctx, b),
        Format::Nvbandwidth => health_checks::parse_nvbandwidth(input, ctx, b),
        Format::GpuBurn => health_checks::parse_gpu_burn(input, ctx, b),
        Format::GpuFryer => health_checks::parse_gpu_fryer(input, ctx, b),
        Format::CmaxAudit => cmax_audit::parse(input, ctx, b),
        Format::ScriptLog => script_log::parse(input, ctx, b),
        Format::SmiCsv => smi_csv::parse(input, ctx, b),
        Format::SmiDmon => dmon::parse(input, ctx, b),
        Format::SmiQuery => smi_query::parse(input, ctx, b),
        Format::SmiTable => smi_table::parse(input, ctx, b),
        Format::SmiXml => smi_xml::parse(input, ctx, b),
        Format::Gpustat => gpustat::parse(input, ctx, b),
        Format::DcgmDiag => dcgm_diag::parse(input, ctx, b),
        Format::KernelLog => kernel_log::parse(input, ctx, b),
        Format::Lspci => lspci::parse(input, ctx, b),
        Format::NpuSmi => npu_smi::parse(input, ctx, b),
        Format::Cnmon => cnmon::parse(input, ctx, b),
        Format::AmdSmi => amd::parse_amd_smi(input, ctx, b),
        Format::RocmSmi => amd::parse_rocm_smi(input, ctx, b),
        Format::DcgmiDmon => prometheus::parse_dcgmi_dmon(input, ctx, b),
        Format::PromText => prometheus::parse_text(input, ctx, b),
        Format::PromRange => prometheus::parse_range(input, ctx, b),
        Format::StartupTable
        | Format::SwitchTable
        | Format::DrillTable
        | Format::BillingTable
        | Format::BillingEvents => tables::parse(format, input, ctx, b),
    }
}

/// Time for rows that carry none: a new sampling round starts when a GPU
/// reappears, and rounds are one interval apart.
pub(crate) struct RoundClock {
    start_ms: i64,
    interval_ms: i64,
    round: i64,
    seen: Vec<u32>,
}

impl RoundClock {
    pub(crate) fn new(start_ms: i64, interval_ms: i64) -> Self {
        Self {
            start_ms,
            interval_ms,
            round: 0,
            seen: Vec::new(),
        }
    }

    /// The time of the current round.
    pub(crate) fn current(&self) -> i64 {
        self.start_ms + self.round * self.interval_ms
    }

    pub(crate) fn time_for(&mut self, gpu: u32) -> i64 {
        if self.seen.contains(&gpu) {
            self.round += 1;
            self.seen.clear();
        }
        self.seen.push(gpu);
        self.start_ms + self.round * self.interval_ms
    }
}

/// A whole JSON document (`what`, "the spot trace"), refused past `limit`
/// bytes; a document of another shape is refused naming its line and
/// column.
pub(crate) fn read_json<T: serde::de::DeserializeOwned, R: BufRead>(
    input: R,
    limit: u64,
    what: &str,
) -> ParseResult<T> {
    let text = super::lines::read_document(input, limit, what)?;
    // serde_json's message names the line and column itself.
    serde_json::from_str(&text)
        .map_err(|e| ParseFailure::Whole(format!("{what} cannot be read: {e}")))
}

/// Where rows without a date stand: on `--start`'s day (at `--start`),
/// else on a day the file's name gives (`gpu-2024-06-01.csv`,
/// `dmon_20240601.log`, from its midnight in the log's zone), else
/// undated — the run's durations and shares are read, its times count
/// from an origin no date is shown or compared for (`UNDATED`), never a
/// date in 1970 presented as the log's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Dateless {
    Start(jiff::Timestamp),
    FileName(jiff::civil::Date),
    Undated,
}

impl Dateless {
    pub(crate) fn of(ctx: &ParseContext) -> Self {
        match (ctx.start, date_in_file_name(&ctx.file_name)) {
            (Some(start), _) => Dateless::Start(start),
            (None, Some(day)) => Dateless::FileName(day),
            (None, None) => Dateless::Undated,
        }
    }

    /// The day the rows are on (1970-01-01 for an undated run's origin).
    pub(crate) fn day(self, ctx: &ParseContext) -> jiff::civil::Date {
        match self {
            Dateless::Start(start) => ctx.times.zone().to_datetime(start).date(),
            Dateless::FileName(day) => day,
            Dateless::Undated => jiff::civil::date(1970, 1, 1),
        }
    }

    /// Where the rows' times count from, in UTC ms.
    pub(crate) fn origin_ms(self, ctx: &ParseContext) -> i64 {
        match self {
            Dateless::Start(start) => start.as_millisecond(),
            Dateless::FileName(day) => ctx
                .times
                .zone()
                .to_timestamp(day.at(0, 0, 0, 0))
                .map_or(0, |t| t.as_millisecond()),
            Dateless::Undated => 0,
        }
    }

    /// Says where the date came from (`what` carry no date), and marks an
    /// undated run.
    pub(crate) fn tell(self, b: &mut RunBuilder<'_>, what: &str) {
        match self {
            Dateless::Start(_) => {}
            Dateless::FileName(day) => b.warn(format!(
                "{what} carry no date; {day} is taken from the file's name (give --start to set it)"
            )),
            Dateless::Undated => {
                b.warn(format!(
                    "{what} carry no date and nothing in the file gives one: imported undated \
                     (durations and shares are read; no date is shown or compared); give --start \
                     to date it"
                ));
                b.metadata
                    .insert(crate::domain::UNDATED.into(), serde_json::Value::Bool(true));
            }
        }
    }
}

/// `Dateless` told and its day, for a parser that needs it once.
pub(crate) fn dateless_day(
    ctx: &ParseContext,
    b: &mut RunBuilder<'_>,
    what: &str,
) -> jiff::civil::Date {
    let d = Dateless::of(ctx);
    d.tell(b, what);
    d.day(ctx)
}

/// `Dateless` told and its origin, for a parser that needs it once.
pub(crate) fn dateless_origin_ms(ctx: &ParseContext, b: &mut RunBuilder<'_>, what: &str) -> i64 {
    let d = Dateless::of(ctx);
    d.tell(b, what);
    d.origin_ms(ctx)
}

/// A date written in a file's name: `2024-06-01`, `2024_06_01`,
/// `2024.06.01` or `20240601`, between 2000 and 2099, not part of a longer
/// number.
pub(crate) fn date_in_file_name(name: &str) -> Option<jiff::civil::Date> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let bytes = base.as_bytes();
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    for at in 0..bytes.len() {
        if !base[at..].starts_with("20") || (at > 0 && digit(at - 1)) {
            continue;
        }
        let rest = &base[at..];
        let (y, m, d, len) = match rest.as_bytes().get(4) {
            Some(b'-' | b'_' | b'.')
                if rest.len() >= 10 && rest.as_bytes()[7] == rest.as_bytes()[4] =>
            {
                (&rest[0..4], &rest[5..7], &rest[8..10], 10)
            }
            Some(c) if c.is_ascii_digit() && rest.len() >= 8 => {
                (&rest[0..4], &rest[4..6], &rest[6..8], 8)
            }
            _ => continue,
        };
        if digit(at + len) {
            continue;
        }
        let (Ok(y), Ok(m), Ok(d)) = (y.parse::<i16>(), m.parse::<i8>(), d.parse::<i8>()) else {
            continue;
        };
        if let Ok(day) = jiff::civil::Date::new(y, m, d) {
            return Some(day);
        }
    }
    None
}

/// A tool's snapshot with no `date` line above it: the first at `--start` or the
/// file's time, the next ones an interval apart.
pub(crate) fn untimed_snapshot_time(
    ctx: &ParseContext,
    clock: &mut Option<RoundClock>,
    b: &mut RunBuilder<'_>,
    line: u64,
    tool: &str,
) -> ParseResult<Option<i64>> {
    if let Some(c) = clock {
        if ctx.interval_ms.is_none() {
            return Err(ParseFailure::Line(LineError::new(
                line,
                None,
                format!(
                    "several {tool} snapshots without dates; give --interval (the loop's sleep) \
                     and --start, or put `date` lines before them"
                ),
            )));
        }
        c.time_for(0);
        return Ok(Some(c.current()));
    }
    let start = match (ctx.start, ctx.file_time) {
        (Some(s), _) => s,
        (None, Some(t)) => {
            b.warn(format!("the {tool} output carries no date: it was taken at the file's modification time (give --start to set it)"));
            t
        }
        (None, None) => {
            return Err(ParseFailure::Line(LineError::new(
                line,
                None,
                format!("the {tool} output carries no date; give --start"),
            )));
        }
    };
    let interval = ctx.interval_ms.map_or(0, i64::from);
    let mut c = RoundClock::new(start.as_millisecond(), interval);
    c.time_for(0);
    *clock = Some(c);
    Ok(Some(start.as_millisecond()))
}

/// A row whose cells do not match its header's in number, as the error that
/// names its line: the one wording every CSV reader gives.
pub(crate) fn check_row_width(line: u64, cells: usize, header: usize) -> Result<(), LineError> {
    if cells == header {
        return Ok(());
    }
    Err(LineError::new(
        line,
        None,
        format!("the row has {cells} fields but the header names {header}"),
    ))
}

/// Split a CSV line into cells. nvidia-smi never quotes, so the fast path is
/// a plain split; a line with quotes (a spreadsheet re-save) is read with
/// CSV quoting rules.
pub(crate) fn split_cells(line: &str) -> smallvec::SmallVec<[std::borrow::Cow<'_, str>; 16]> {
    if !line.contains('"') {
        return line.split(',').map(std::borrow::Cow::Borrowed).collect();
    }
    let mut cells = smallvec::SmallVec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                current.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(std::borrow::Cow::Owned(std::mem::take(&mut current))),
            (c, _) => current.push(c),
        }
    }
    cells.push(std::borrow::Cow::Owned(current));
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_split_plainly_or_with_quotes() {
        assert_eq!(split_cells("a, b ,c").to_vec(), vec!["a", " b ", "c"]);
        assert_eq!(
            split_cells("\"x, y\",\"say \"\"hi\"\"\",z").to_vec(),
            vec!["x, y", "say \"hi\"", "z"]
        );
    }
}

#[cfg(test)]
mod dateless_tests {
    use super::date_in_file_name;

    #[test]
    fn a_date_is_read_from_a_files_name_in_its_common_spellings() {
        let day = |y, m, d| Some(jiff::civil::date(y, m, d));
        assert_eq!(date_in_file_name("gpu-2024-06-01.csv"), day(2024, 6, 1));
        assert_eq!(
            date_in_file_name("/logs/dmon_20240601.log"),
            day(2024, 6, 1)
        );
        assert_eq!(date_in_file_name("node3.2025_12_31.txt"), day(2025, 12, 31));
        assert_eq!(date_in_file_name("run-2024.06.01-b.log"), day(2024, 6, 1));
        // Not dates: a longer number, an impossible day, a mixed separator.
        assert_eq!(date_in_file_name("job-1202406011.log"), None);
        assert_eq!(date_in_file_name("gpu-2024-02-30.csv"), None);
        assert_eq!(date_in_file_name("gpu-2024-06_01.csv"), None);
        assert_eq!(date_in_file_name("gpu.csv"), None);
    }
}
