//! The providers' own bill exports (CSV): Alibaba Cloud's bill details,
//! Tencent Cloud's bill details, Huawei Cloud's expenditure details, the AWS
//! Cost and Usage Report, AutoDL-style per-instance charge lists. Columns are
//! read by meaning, from the headers each provider writes (Chinese or
//! English, with units in brackets), so that an export with columns added,
//! dropped or reordered still reads; the provider is named from headers only
//! it writes, and gives the time zone its zone-less times are in.
//!
//! Each line with an instance becomes a bill line (`BillingLine`): the
//! billed period, the billed seconds (from a usage in time units where the
//! export has one, else the period), the amount exactly as written, the
//! currency, the unit price, and the provider's line id, the instance's name
//! and the product. Lines without an instance (taxes, storage, support),
//! lines billed in other units than time (data transfer in GB, disks,
//! requests) and credits are left out and counted: only instance time is
//! reconciled with what was measured. A provider's line id names one line:
//! a second line with the same id is refused.

use std::io::BufRead;

use super::super::ParseContext;
use super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::LineReader;
use super::super::timestamps::{TimeError, TimeReader};
use super::split_cells;
use crate::domain::BillingLine;
use crate::domain::money::{self, Decimal};

mod columns;
pub use columns::Provider;
use columns::{Columns, Meaning, normalise, provider_of};

/// Whether a CSV header is a bill export's (read by meaning), and whose.
pub fn recognise(header_line: &str) -> Option<Provider> {
    let header: Vec<String> = split_cells(header_line)
        .into_iter()
        .map(|c| c.into_owned())
        .collect();
    // The documented billing-lines table has a reader of its own.
    if header.iter().any(|h| h.trim() == "billed_seconds") {
        return None;
    }
    Columns::of(&header)
        .complete()
        .then(|| provider_of(&header))
}

/// Seconds in one unit of a usage, from its unit's name.
fn seconds_per(unit: &str) -> Option<f64> {
    let u = unit.trim().to_lowercase();
    let u = u.trim_end_matches('s');
    match u {
        "秒" | "second" | "sec" | "" => (!unit.trim().is_empty()).then_some(1.0),
        "分钟" | "分" | "minute" | "min" => Some(60.0),
        "小时" | "时" | "hour" | "hr" | "h" => Some(3600.0),
        "天" | "day" => Some(86_400.0),
        _ => None,
    }
}

/// An amount as a console writes it: "¥1,234.56", "$32.50", "130.00".
fn money_of(text: &str) -> Result<Decimal, String> {
    let cleaned: String = text
        .trim()
        .chars()
        .filter(|c| !matches!(c, '¥' | '￥' | '$' | ',' | ' ' | '元'))
        .collect();
    money::parse("amount", &cleaned).map_err(|e| e.reason)
}

/// "2026/11/20 16:00:00 GMT+08:00" as the time reader takes it.
fn time_text(text: &str) -> String {
    let t = text.trim();
    for marker in [" GMT", " UTC"] {
        if let Some(at) = t.find(marker) {
            let offset = t[at + marker.len()..].trim();
            return if offset.is_empty() {
                format!("{}Z", &t[..at])
            } else {
                format!("{}{offset}", &t[..at])
            };
        }
    }
    t.to_string()
}

/// Lines left out, by why.
#[derive(Default)]
struct LeftOut {
    no_instance: u64,
    credits: u64,
    /// Billed in other units than time: data in GB, requests, disks.
    not_time: u64,
}

/// A usage longer than this in one line is no instance's time.
const MAX_USAGE_S: f64 = 366.0 * 86_400.0;

/// What a CUR's usage type says a line bills when no unit column is there:
/// these bill data, storage or requests, not an instance's hours.
const NOT_INSTANCE_TIME: &[&str] = &[
    "datatransfer",
    "bytes",
    "ebs:",
    "volumeusage",
    "snapshotusage",
    "timedstorage",
    "requests",
    "storage",
];

pub fn parse<R: BufRead>(input: R, ctx: &mut ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut header: Option<(Vec<String>, Columns, Provider)> = None;
    let mut times = TimeReader::new(ctx.times.zone().clone());
    let mut left_out = LeftOut::default();
    while let Some(line) = lines.next_line()? {
        if line.text.trim().is_empty() {
            continue;
        }
        let cells: Vec<String> = split_cells(line.text)
            .into_iter()
            .map(|c| c.trim().to_string())
            .collect();
        let Some((names, columns, provider)) = &header else {
            let columns = Columns::of(&cells);
            if !columns.complete() {
                return Err(ParseFailure::Whole(
                    "the header names no instance, amount and billed period (docs/formats.md lists the columns read)".into(),
                ));
            }
            let provider = provider_of(&cells);
            if let Some(zone) = provider.zone() {
                times = TimeReader::new(zone);
            }
            header = Some((cells, columns, provider));
            continue;
        };
        if let Err(error) = super::check_row_width(line.number, cells.len(), names.len()) {
            b.bad_line(&line, error)?;
            continue;
        }
        let row = Row {
            line: line.number,
            cells: &cells,
            names,
            columns,
            provider: *provider,
        };
        match row.read(&mut times, &mut left_out) {
            Ok(Some(bill)) => {
                let column = columns.get(Meaning::LineId).map(|c| c + 1);
                if let Err(e) = b.add_billing_line(bill, line.number, column) {
                    b.bad_line(&line, e)?;
                }
            }
            Ok(None) => {}
            Err(e) => b.bad_line(&line, e)?,
        }
    }
    let Some((_, _, provider)) = header else {
        return Err(ParseFailure::Whole("the bill export is empty".into()));
    };
    if b.billing_lines.is_empty() && b.bill_lines_taken == 0 {
        return Err(ParseFailure::Whole(format!(
            "the {} holds no line of instance time ({} without an instance, {} billed in other units, {} credits)",
            provider.name(),
            left_out.no_instance,
            left_out.not_time,
            left_out.credits
        )));
    }
    if left_out.no_instance + left_out.credits + left_out.not_time > 0 {
        b.warn(format!(
            "{} line(s) without an instance (taxes, storage, support), {} billed in other units than time (data, disks, requests) and {} credit(s) left out: they bill no instance time",
            left_out.no_instance, left_out.not_time, left_out.credits
        ));
    }
    b.metadata.insert(
        "bill_export".into(),
        serde_json::json!({
            "provider": provider.name(),
            "without_instance": left_out.no_instance,
            "not_time": left_out.not_time,
            "credits": left_out.credits,
        }),
    );
    Ok(())
}

/// A line's usage, read by its unit.
enum Usage {
    /// No usage column, or no unit to read it by.
    None,
    /// Seconds, and the seconds its last written digit stands for.
    Time(f64, f64),
    /// In other units than time (GB, requests).
    NotTime,
}

/// One row of the export, read by meaning.
struct Row<'a> {
    line: u64,
    cells: &'a [String],
    names: &'a [String],
    columns: &'a Columns,
    provider: Provider,
}

impl Row<'_> {
    fn cell(&self, m: Meaning) -> Option<(usize, &str)> {
        let i = self.columns.get(m)?;
        let v = self.cells.get(i)?.trim();
        (!v.is_empty() && v != "-" && v != "--").then_some((i, v))
    }

    fn error(&self, column: usize, reason: String) -> LineError {
        let name = self
            .names
            .get(column)
            .map_or("?", |n| n.trim_start_matches('\u{feff}'));
        LineError::new(self.line, Some(column + 1), format!("{name}: {reason}"))
    }

    fn time(
        &self,
        times: &mut TimeReader,
        m: Meaning,
    ) -> Result<Option<jiff::Timestamp>, LineError> {
        let Some((i, v)) = self.cell(m) else {
            return Ok(None);
        };
        let ms = times.read(&time_text(v)).map_err(|e| match e {
            TimeError::Shape => self.error(i, format!("\"{v}\" is not a time")),
            e => self.error(i, format!("\"{v}\" is not a time: {e}")),
        })?;
        jiff::Timestamp::from_millisecond(ms)
            .map(Some)
            .map_err(|e| self.error(i, e.to_string()))
    }

    /// The bill line, `None` for a line left out (counted in `left_out`).
    fn read(
        &self,
        times: &mut TimeReader,
        left_out: &mut LeftOut,
    ) -> Result<Option<BillingLine>, LineError> {
        let Some((_, instance)) = self.cell(Meaning::Instance) else {
            left_out.no_instance += 1;
            return Ok(None);
        };
        if let Some((_, kind)) = self.cell(Meaning::LineType)
            && !kind.contains("Usage")
        {
            // The CUR's taxes, credits, refunds and fees bill no instance time.
            left_out.credits += 1;
            return Ok(None);
        }
        let (ai, amount_text) = self.cell(Meaning::Amount).ok_or_else(|| {
            self.error(
                self.columns.get(Meaning::Amount).unwrap_or(0),
                "the amount is empty".into(),
            )
        })?;
        let amount = money_of(amount_text).map_err(|e| self.error(ai, e))?;
        if amount.is_sign_negative() {
            left_out.credits += 1;
            return Ok(None);
        }
        let (si, _) = self.cell(Meaning::Start).ok_or_else(|| {
            self.error(
                self.columns.get(Meaning::Start).unwrap_or(0),
                "the start is empty".into(),
            )
        })?;
        let start = self
            .time(times, Meaning::Start)?
            .ok_or_else(|| self.error(si, "the start is empty".into()))?;
        let end = self.time(times, Meaning::End)?;
        let usage_s = match self.usage_seconds()? {
            Usage::Time(s, precision) => Some((s, precision)),
            Usage::None => None,
            Usage::NotTime => {
                left_out.not_time += 1;
                return Ok(None);
            }
        };
        let (end, billed_seconds) = match (end, usage_s) {
            // A usage that is the period written to its own precision
            // ("0.0333" hours for 120 s) bills the period.
            (Some(end), Some((s, precision)))
                if ((end.as_millisecond() - start.as_millisecond()) as f64 / 1000.0 - s).abs()
                    <= precision =>
            {
                (
                    end,
                    (end.as_millisecond() - start.as_millisecond()) as f64 / 1000.0,
                )
            }
            (Some(end), Some((s, _))) => (end, s),
            (Some(end), None) => (
                end,
                (end.as_millisecond() - start.as_millisecond()) as f64 / 1000.0,
            ),
            (None, Some((s, _))) => {
                let ui = self.columns.get(Meaning::Usage).unwrap_or(si);
                if s > MAX_USAGE_S {
                    return Err(self.error(
                        ui,
                        format!(
                            "a usage of {s:.3e} s is longer than a year: no line bills that much of one instance"
                        ),
                    ));
                }
                // At most a year: the milliseconds fit, and the end is a
                // time (or the error says why not).
                let end = start
                    .as_millisecond()
                    .checked_add((s * 1000.0).round() as i64)
                    .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
                    .ok_or_else(|| {
                        self.error(
                            ui,
                            "the usage ends after the last time a timestamp can hold".into(),
                        )
                    })?;
                (end, s)
            }
            (None, None) => {
                return Err(self.error(
                    si,
                    "neither an end nor a usage in time units gives the billed time".into(),
                ));
            }
        };
        let currency = match self.cell(Meaning::Currency) {
            Some((_, c)) => c.to_string(),
            None => self
                .bracket_currency(ai)
                .or(self.provider.currency())
                .ok_or_else(|| {
                    self.error(
                        ai,
                        "no currency column, and the provider writes none by default".into(),
                    )
                })?
                .to_string(),
        };
        let unit_price = match self.cell(Meaning::UnitPrice) {
            Some((i, p)) => money_of(p).map_err(|e| self.error(i, e))?,
            // The amount over the billed hours.
            None if billed_seconds > 0.0 => {
                let hours =
                    Decimal::from_f64_retain(billed_seconds / 3600.0).unwrap_or(Decimal::ONE);
                (amount / hours).round_dp(6)
            }
            None => Decimal::ZERO,
        };
        let line = BillingLine {
            instance: instance.to_string(),
            start,
            end,
            billed_seconds,
            compute_seconds: None,
            queue_seconds: None,
            io_wait_seconds: None,
            amount,
            currency,
            unit_price,
            line_id: self.cell(Meaning::LineId).map(|(_, v)| v.to_string()),
            host: self.cell(Meaning::Host).map(|(_, v)| v.to_string()),
            product: self.cell(Meaning::Product).map(|(_, v)| v.to_string()),
        }
        .validate()
        .map_err(|e| LineError::new(self.line, None, e.to_string()))?;
        Ok(Some(line))
    }

    /// A usage in time units as seconds, and the seconds its last written
    /// digit stands for: the unit from its own column, or from the usage
    /// header's brackets ("时长(小时)"). A usage in other units (GB,
    /// requests) is no instance time.
    fn usage_seconds(&self) -> Result<Usage, LineError> {
        let Some((i, usage)) = self.cell(Meaning::Usage) else {
            return Ok(Usage::None);
        };
        let unit = self
            .cell(Meaning::UsageUnit)
            .map(|(_, u)| u.to_string())
            .or_else(|| self.columns.units.get(i).cloned().flatten())
            .or_else(|| {
                // The documented generic column is in seconds; the CUR's
                // box usage is in hours.
                let name = normalise(&self.names[i]).0;
                match name.as_str() {
                    "billedseconds" => Some("s".into()),
                    "lineitemusageamount" => Some(self.cur_unit().into()),
                    _ => None,
                }
            });
        let Some(unit) = unit else {
            return Ok(Usage::None);
        };
        let Some(per) = seconds_per(&unit) else {
            // A usage in GB or requests says nothing of time.
            return Ok(Usage::NotTime);
        };
        let v: f64 = usage
            .replace(',', "")
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| self.error(i, format!("\"{usage}\" is not a usage")))?;
        let decimals = usage.split_once('.').map_or(0, |(_, d)| d.len()) as i32;
        let precision = per * 10f64.powi(-decimals);
        Ok(Usage::Time((v * per * 1000.0).round() / 1000.0, precision))
    }

    /// The unit of a CUR usage with no unit column: hours for an
    /// instance's usage, none of time for data, storage and requests.
    fn cur_unit(&self) -> &'static str {
        let kind = self
            .cell(Meaning::Product)
            .map(|(_, p)| p.to_lowercase())
            .unwrap_or_default();
        if NOT_INSTANCE_TIME.iter().any(|k| kind.contains(k)) {
            "GB"
        } else {
            "h"
        }
    }

    /// A currency the amount's header names in brackets: "(元)" is CNY.
    fn bracket_currency(&self, amount_column: usize) -> Option<&'static str> {
        let unit = self.columns.units.get(amount_column)?.as_deref()?;
        match unit {
            "元" | "CNY" | "RMB" | "人民币" => Some("CNY"),
            "USD" | "美元" => Some("USD"),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_read_by_meaning_in_either_language() {
        assert_eq!(
            normalise("时长(小时)"),
            ("时长".into(), Some("小时".into()))
        );
        assert_eq!(
            normalise("lineItem/UsageStartDate").0,
            "lineitemusagestartdate"
        );
        assert_eq!(
            normalise("Order No./Transaction ID").0,
            "ordernotransactionid"
        );
        assert_eq!(
            recognise("账期,实例ID,服务开始时间,服务结束时间,应付金额"),
            Some(Provider::Alibaba)
        );
        assert_eq!(
            recognise(
                "identity/LineItemId,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/ResourceId,lineItem/UnblendedCost"
            ),
            Some(Provider::Aws)
        );
        // The documented billing-lines table is read by its own reader.
        assert_eq!(
            recognise("instance,start,end,billed_seconds,amount,currency,unit_price"),
            None
        );
        // Not a bill: no amount.
        assert_eq!(recognise("实例ID,开始时间,结束时间"), None);
    }

    #[test]
    fn usages_amounts_and_times_as_consoles_write_them() {
        assert_eq!(seconds_per("小时"), Some(3600.0));
        assert_eq!(seconds_per("Hours"), Some(3600.0));
        assert_eq!(seconds_per("秒"), Some(1.0));
        assert_eq!(seconds_per("GB"), None);
        assert_eq!(money_of("¥1,234.56").unwrap(), Decimal::new(123_456, 2));
        assert_eq!(
            money_of("32.5000000000").unwrap().normalize(),
            Decimal::new(325, 1)
        );
        assert!(money_of("n/a").is_err());
        assert_eq!(
            time_text("2026/11/20 16:00:00 GMT+08:00"),
            "2026/11/20 16:00:00+08:00"
        );
    }
}
