//! Price catalogs and the providers' price answers, read like the logs:
//! recognised from their content, each offering becoming a [`PriceQuote`].
//!
//! Catalogs (CSV) list many instance types: SkyPilot's catalogs, gpuhunt's,
//! the AWS Price List's offer files. Rows without accelerators are no GPU
//! offering and are left out, counted. Price answers (JSON) are what a
//! provider's price API answered one request: Alibaba Cloud's
//! `DescribePrice`, Tencent Cloud's `InquiryPriceRunInstances`, Huawei
//! Cloud's `ListOnDemandResourceRatings`. An answer does not repeat what
//! was asked (the instance type, the region, the period), so it is read
//! only when saved with its request:
//! `{"request": {…}, "response": {…}}` (or an array of these).
//!
//! Money is exact: prices are read from their text, never through a float.

mod aliyun;
mod aws_price_list;
mod gpuhunt;
mod huawei;
mod skypilot;
mod tencent;

pub use aliyun::parse as parse_aliyun;
pub use aws_price_list::parse as parse_aws_price_list;
pub use gpuhunt::parse as parse_gpuhunt;
pub use huawei::parse as parse_huawei;
pub use skypilot::parse as parse_skypilot;
pub use tencent::parse as parse_tencent;

use std::io::BufRead;

use serde_json::{Map, Value};

use super::super::Format;
use super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::lines::{LineReader, read_document};
use super::super::values::is_missing;
use super::split_cells;
use crate::domain::PriceQuote;
use crate::domain::money::{self, Decimal};

// ---------------------------------------------------------------------------
// Detection

/// The catalog a CSV file is, from its first line (and, for the AWS Price
/// List, the lines under its metadata).
pub(crate) fn csv_format(first: &str, text: &str) -> Option<Format> {
    let cells = cells_of(first);
    if skypilot::recognise(&cells) {
        return Some(Format::SkypilotCatalog);
    }
    if gpuhunt::recognise(&cells) {
        return Some(Format::GpuhuntCatalog);
    }
    if aws_price_list::recognise(&cells) {
        return Some(Format::AwsPriceList);
    }
    // The offer file's metadata lines come first: its header is the sixth.
    if cells.first().map(String::as_str) == Some("FormatVersion") {
        return text
            .lines()
            .take(aws_price_list::PREAMBLE_LINES + 1)
            .any(|l| aws_price_list::recognise(&cells_of(l)))
            .then_some(Format::AwsPriceList);
    }
    None
}

/// The price answer a JSON document is, by the keys only that answer has.
/// The document may follow a line or two a CLI or a shell printed first.
pub(crate) fn json_format(lines: &[&str], text: &str) -> Option<Format> {
    if !lines.iter().take(4).any(|l| opens_json(l)) {
        return None;
    }
    let has = |k: &str| text.contains(k);
    if has("\"PriceInfo\"") && has("\"TradePrice\"") {
        Some(Format::AliyunPrice)
    } else if has("\"InstancePrice\"") && has("\"Price\"") {
        Some(Format::TencentPrice)
    } else if has("\"product_rating_results\"") && has("\"official_website_amount\"") {
        Some(Format::HuaweiPrice)
    } else {
        None
    }
}

/// A line a JSON object or array starts on.
fn opens_json(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('{') || t == "[" || t.starts_with("[{") || t.starts_with("[ ")
}

fn cells_of(line: &str) -> Vec<String> {
    split_cells(line)
        .into_iter()
        .map(|c| c.trim().trim_start_matches('\u{feff}').to_string())
        .collect()
}

/// Whether a header names every one of `names` (case aside).
fn names_all(cells: &[String], names: &[&str]) -> bool {
    names
        .iter()
        .all(|n| cells.iter().any(|c| c.eq_ignore_ascii_case(n)))
}

// ---------------------------------------------------------------------------
// CSV catalogs

/// A catalog's header: its column names, found by name (case aside).
pub(super) struct Header {
    names: Vec<String>,
}

impl Header {
    fn new(cells: &[String]) -> Self {
        Self {
            names: cells.to_vec(),
        }
    }

    pub(super) fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n.eq_ignore_ascii_case(name))
    }

    /// The first of `names` the header has.
    pub(super) fn find_any(&self, names: &[&str]) -> Option<usize> {
        names.iter().find_map(|n| self.find(n))
    }

    /// The column, or why the header cannot be read without it.
    pub(super) fn require(&self, name: &str, what: &str) -> Result<usize, String> {
        self.find(name)
            .ok_or_else(|| format!("the {what} header has no {name} column"))
    }
}

/// One row of a catalog, its cells found by column.
pub(super) struct Row<'a> {
    pub line: u64,
    cells: &'a [String],
    header: &'a Header,
}

impl Row<'_> {
    /// The cell of `column`, unless the column is absent or the cell says
    /// nothing (empty, "NA", "N/A").
    pub(super) fn cell(&self, column: Option<usize>) -> Option<(usize, &str)> {
        let i = column?;
        let v = self.cells.get(i)?.trim();
        (!is_missing(v)).then_some((i, v))
    }

    /// The cell of `column` as written (trimmed), whatever it says.
    pub(super) fn raw(&self, column: Option<usize>) -> Option<&str> {
        self.cells.get(column?).map(|v| v.trim())
    }

    pub(super) fn text(&self, column: Option<usize>) -> Option<String> {
        self.cell(column).map(|(_, v)| v.to_string())
    }

    /// An error of the cell in `column` (0-based), said with its column's name.
    pub(super) fn error(&self, column: usize, reason: impl std::fmt::Display) -> LineError {
        let name = self.header.names.get(column).map_or("?", String::as_str);
        LineError::new(self.line, Some(column + 1), format!("{name}: {reason}"))
    }

    /// A price exactly as written; `None` where the cell is empty.
    pub(super) fn price(&self, column: Option<usize>) -> Result<Option<Decimal>, LineError> {
        let Some((i, v)) = self.cell(column) else {
            return Ok(None);
        };
        let price = money::parse("price", v).map_err(|e| self.error(i, e.reason))?;
        if price.is_sign_negative() && !price.is_zero() {
            return Err(self.error(i, format!("{v} is negative: no price is")));
        }
        Ok(Some(price))
    }

    /// A size or a count of CPUs, with or without its unit ("1152 GiB",
    /// "3,904 GiB", "96.0").
    pub(super) fn amount(&self, column: Option<usize>) -> Result<Option<f64>, LineError> {
        let Some((i, v)) = self.cell(column) else {
            return Ok(None);
        };
        let (number, _) = super::super::values::split_unit(v);
        number
            .replace(',', "")
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(Some)
            .ok_or_else(|| self.error(i, format!("\"{v}\" is not a number")))
    }

    /// How many accelerators the row's instance has.
    pub(super) fn accelerators(&self, column: Option<usize>) -> Result<Accelerators, LineError> {
        let Some((i, v)) = self.cell(column) else {
            return Ok(Accelerators::None);
        };
        let n = v
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0 && *x <= f64::from(u32::MAX))
            .ok_or_else(|| self.error(i, format!("\"{v}\" is not a number of accelerators")))?;
        Ok(if n == 0.0 {
            Accelerators::None
        } else if n.fract() == 0.0 {
            Accelerators::Whole(n as u32)
        } else {
            Accelerators::Fraction
        })
    }
}

/// How many accelerators a row says its instance has.
pub(super) enum Accelerators {
    /// None, 0 or an empty cell: no GPU offering.
    None,
    Whole(u32),
    /// A share of one or more (Azure's NV-series slices of a GPU): the count
    /// is left unknown.
    Fraction,
}

impl Accelerators {
    pub(super) fn count(&self) -> Option<u32> {
        match self {
            Accelerators::Whole(n) => Some(*n),
            _ => None,
        }
    }
}

/// Read a catalog's rows: its header (after at most `preamble` lines that
/// come before it, handed to `before_header`), then each row.
pub(super) fn read_csv<R: BufRead, C>(
    input: R,
    b: &mut RunBuilder<'_>,
    what: &str,
    preamble: usize,
    mut columns: impl FnMut(&Header) -> Result<C, String>,
    mut before_header: impl FnMut(&[String]),
    mut row: impl FnMut(&C, &Row<'_>, &mut RunBuilder<'_>) -> Result<(), LineError>,
) -> ParseResult {
    let mut lines = LineReader::new(input);
    let mut header: Option<(Header, C)> = None;
    let mut seen = 0;
    while let Some(line) = lines.next_line()? {
        if line.text.trim().is_empty() {
            continue;
        }
        let cells = cells_of(line.text);
        let Some((names, c)) = &header else {
            let names = Header::new(&cells);
            match columns(&names) {
                Ok(c) => header = Some((names, c)),
                Err(_) if seen < preamble => {
                    before_header(&cells);
                    seen += 1;
                }
                Err(reason) => return Err(ParseFailure::Whole(reason)),
            }
            continue;
        };
        // Two catalogs joined with `cat`: the second's header again.
        if cells == names.names {
            continue;
        }
        if let Err(e) = super::check_row_width(line.number, cells.len(), names.names.len()) {
            b.bad_line(&line, e)?;
            continue;
        }
        let r = Row {
            line: line.number,
            cells: &cells,
            header: names,
        };
        if let Err(e) = row(c, &r, b) {
            b.bad_line(&line, e)?;
        }
    }
    if header.is_none() {
        return Err(ParseFailure::Whole(format!("the {what} has no header")));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// What was left out, and the end of a read

/// Rows or answers left out, by why.
#[derive(Default)]
pub(super) struct LeftOut {
    pub no_accelerator: u64,
    /// A catalog row pricing accelerators alone (SkyPilot's GCP catalog
    /// prices GPUs apart from the machine they attach to).
    pub no_instance_type: u64,
    pub no_price: u64,
    /// Reserved terms paid wholly or partly upfront, and fees in other
    /// units than hours.
    pub upfront: u64,
    /// Other operating systems, tenancies, pre-installed software or
    /// capacity reservations than a plain shared Linux instance's.
    pub other_offer: u64,
    /// Priced things that are no instance (disks, bandwidth).
    pub not_instance: u64,
    /// Kept, with the count of accelerators unknown: a share of a GPU.
    pub fraction: u64,
}

fn rows(n: u64) -> String {
    if n == 1 {
        "1 row".into()
    } else {
        format!("{n} rows")
    }
}

impl LeftOut {
    fn summary(&self) -> String {
        let mut parts = Vec::new();
        let mut say = |n: u64, why: &str| {
            if n > 0 {
                parts.push(format!("{} {why}", rows(n)));
            }
        };
        say(self.no_accelerator, "without accelerators");
        say(
            self.no_instance_type,
            "pricing accelerators without an instance type",
        );
        say(self.no_price, "without a price");
        say(self.upfront, "paid upfront or in other units than hours");
        say(
            self.other_offer,
            "for other systems, tenancies, software or capacity reservations",
        );
        say(self.not_instance, "pricing other things than instances");
        parts.join(", ")
    }

    fn warn(&self, b: &mut RunBuilder<'_>) {
        let mut say = |n: u64, why: &str| {
            if n > 0 {
                b.warn(format!("{} {why}", rows(n)));
            }
        };
        say(self.no_accelerator, "without accelerators left out");
        say(
            self.no_instance_type,
            "pricing accelerators without an instance type (GPUs priced apart from their machine) left out",
        );
        say(self.no_price, "without a price left out");
        say(
            self.upfront,
            "paid wholly or partly upfront, or in other units than hours, left out",
        );
        say(
            self.other_offer,
            "for other operating systems, tenancies, pre-installed software or capacity reservations left out",
        );
        say(
            self.not_instance,
            "pricing other things than instances (disks, bandwidth) left out",
        );
        say(
            self.fraction,
            "with a share of an accelerator kept with their count of accelerators unknown",
        );
    }
}

/// A quote read on `line`, validated by the builder.
pub(super) fn push(
    b: &mut RunBuilder<'_>,
    line: u64,
    column: Option<usize>,
    quote: PriceQuote,
) -> Result<(), LineError> {
    b.price_quote(quote)
        .map_err(|reason| LineError::new(line, column, reason))
}

/// The end of a read: a source that gave no quote is refused, saying what
/// was left out; what was left out is warned of and kept in the metadata.
pub(super) fn finish(b: &mut RunBuilder<'_>, source: &str, left: &LeftOut) -> ParseResult {
    if b.price_quotes.is_empty() {
        let summary = left.summary();
        return Err(ParseFailure::Whole(if summary.is_empty() {
            format!("the {source} holds no price of a GPU instance")
        } else {
            format!("the {source} holds no price of a GPU instance ({summary} left out)")
        }));
    }
    left.warn(b);
    b.metadata.insert(
        "price_catalog".into(),
        serde_json::json!({
            "source": source,
            "quotes": b.price_quotes.len(),
            "without_accelerators": left.no_accelerator,
            "without_instance_type": left.no_instance_type,
            "without_price": left.no_price,
            "upfront_or_other_units": left.upfront,
            "other_offers": left.other_offer,
            "not_instances": left.not_instance,
            "accelerator_shares": left.fraction,
        }),
    );
    Ok(())
}

/// `total` for `n` periods as the price of one; whether the division is
/// exact (an inexact one is rounded to 6 places).
pub(super) fn per_one(total: Decimal, n: Decimal) -> (Decimal, bool) {
    if n == Decimal::ONE {
        return (total, true);
    }
    match total.checked_div(n) {
        // A quotient that runs to the last of a decimal's 28 digits (100 / 3)
        // is cut there, and times `n` may still round back to the total.
        Some(q) if q.normalize().scale() < 20 && q.checked_mul(n) == Some(total) => {
            (q.normalize(), true)
        }
        Some(q) => (q.round_dp(6), false),
        None => (total, false),
    }
}

// ---------------------------------------------------------------------------
// JSON price answers

/// One step of a path into a JSON document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Key(&'static str),
    Index(usize),
}

/// A price answer as saved: the JSON document, where it starts in the
/// file (lines a CLI or a shell printed before it are skipped) and its value.
pub(super) struct Answer {
    text: String,
    /// Lines before the document's first.
    lines_before: u64,
    pub value: Value,
}

/// Price answers are small; a larger file is no answer.
const ANSWER_LIMIT: u64 = 16 << 20;

impl Answer {
    pub(super) fn read<R: BufRead>(
        input: R,
        b: &mut RunBuilder<'_>,
        what: &str,
    ) -> ParseResult<Self> {
        let raw = read_document(input, ANSWER_LIMIT, what)?;
        let raw = raw.trim_start_matches('\u{feff}');
        let mut start = None;
        let mut offset = 0;
        for (n, line) in raw.split_inclusive('\n').enumerate() {
            if opens_json(line) {
                start = Some((offset, n as u64));
                break;
            }
            offset += line.len();
        }
        let Some((start, lines_before)) = start else {
            return Err(ParseFailure::Whole(format!(
                "the {what} holds no JSON document"
            )));
        };
        let text = raw[start..].to_string();
        let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Value>();
        let value = match stream.next() {
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                return Err(LineError::new(
                    e.line() as u64 + lines_before,
                    Some(e.column()),
                    format!("not valid JSON: {e}"),
                )
                .into());
            }
            None => return Err(ParseFailure::Whole(format!("the {what} is empty"))),
        };
        let end = stream.byte_offset();
        if !text[end..].trim().is_empty() {
            let (line, _) = position(&text, end);
            b.warn(format!(
                "the text after the JSON document (from line {}) was left out",
                line + lines_before
            ));
        }
        Ok(Self {
            text,
            lines_before,
            value,
        })
    }

    /// The refusal of the value at `path`, at its line and column where the
    /// document has it.
    pub(super) fn refuse(&self, path: &[Step], reason: impl Into<String>) -> ParseFailure {
        let reason = reason.into();
        match locate(&self.text, path) {
            Some(at) => {
                let (line, column) = position(&self.text, at);
                LineError::new(line + self.lines_before, Some(column), reason).into()
            }
            None => ParseFailure::Whole(reason),
        }
    }

    /// The saved requests and their answers: one, or an array of them. A
    /// bare answer (no request) is `(None, answer)`.
    pub(super) fn exchanges(&self) -> Vec<Exchange<'_>> {
        match &self.value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| Exchange::of(v, vec![Step::Index(i)]))
                .collect(),
            v => vec![Exchange::of(v, Vec::new())],
        }
    }
}

/// One request and the answer to it, with where each lies in the document.
pub(super) struct Exchange<'a> {
    pub request: Option<(&'a Map<String, Value>, Vec<Step>)>,
    pub response: &'a Value,
    pub response_path: Vec<Step>,
    /// The whole exchange (or the bare answer).
    pub path: Vec<Step>,
}

impl<'a> Exchange<'a> {
    fn of(v: &'a Value, path: Vec<Step>) -> Self {
        let request = ["request", "Request"]
            .into_iter()
            .find_map(|k| v.get(k).and_then(Value::as_object).map(|m| (k, m)));
        if let Some((req_key, req)) = request
            && let Some((res_key, res)) = ["response", "Response"]
                .into_iter()
                .find_map(|k| v.get(k).map(|r| (k, r)))
        {
            let mut request_path = path.clone();
            request_path.push(Step::Key(req_key));
            let mut response_path = path.clone();
            response_path.push(Step::Key(res_key));
            return Self {
                request: Some((req, request_path)),
                response: res,
                response_path,
                path,
            };
        }
        Self {
            request: None,
            response: v,
            response_path: path.clone(),
            path,
        }
    }
}

/// A field of a request, as a dotted name written flat (`"Placement.Zone"`,
/// as a CLI's flags are) or nested (`{"Placement": {"Zone": …}}`).
pub(super) fn field<'v>(request: &'v Map<String, Value>, dotted: &str) -> Option<&'v Value> {
    if let Some(v) = request.get(dotted).filter(|v| !v.is_null()) {
        return Some(v);
    }
    let mut parts = dotted.split('.');
    let mut v = request.get(parts.next()?)?;
    for p in parts {
        v = v.get(p)?;
    }
    (!v.is_null()).then_some(v)
}

/// A JSON value as text: a string, or a number as written.
pub(super) fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An amount of money from a JSON number or string, exactly as serde_json
/// keeps its digits (never through arithmetic on a float); `None` for null.
pub(super) fn money_of(v: &Value) -> Result<Option<Decimal>, String> {
    let amount = match v {
        Value::Null => return Ok(None),
        Value::String(s) if is_missing(s) => return Ok(None),
        Value::String(s) => money::parse("price", s).map_err(|e| e.reason)?,
        Value::Number(n) => {
            let t = n.to_string();
            // serde_json writes very large and very small numbers with an
            // exponent ("1e-7").
            money::parse("price", &t)
                .or_else(|e| Decimal::from_scientific(&t).map_err(|_| e.reason))?
        }
        other => return Err(format!("{other} is not an amount of money")),
    };
    if amount.is_sign_negative() && !amount.is_zero() {
        return Err(format!("{amount} is negative: no price is"));
    }
    Ok(Some(amount))
}

/// A positive count from a JSON number or string, as an exact decimal.
pub(super) fn quantity_of(v: &Value) -> Option<Decimal> {
    let t = text_of(v)?;
    let d: Decimal = t.parse().ok()?;
    (d > Decimal::ZERO).then_some(d)
}

/// `path` with `more` steps after it.
pub(super) fn at(path: &[Step], more: &[Step]) -> Vec<Step> {
    let mut p = path.to_vec();
    p.extend_from_slice(more);
    p
}

/// The line (1-based) and column (1-based, in characters) of byte `at`.
fn position(text: &str, at: usize) -> (u64, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() as u64 + 1;
    let column = before
        .rfind('\n')
        .map_or(before, |i| &before[i + 1..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// Where the value at `path` starts in a valid JSON `text` (byte offset).
fn locate(text: &str, path: &[Step]) -> Option<usize> {
    #[derive(PartialEq)]
    enum Frame {
        Object { key: Option<String>, want_key: bool },
        Array { index: usize },
    }
    let matches = |stack: &[Frame]| {
        stack.len() == path.len()
            && stack.iter().zip(path).all(|(f, s)| match (f, s) {
                (Frame::Object { key: Some(k), .. }, Step::Key(want)) => k == want,
                (Frame::Array { index }, Step::Index(want)) => index == want,
                _ => false,
            })
    };
    let bytes = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    // The end of the string that starts at `from` (past its closing quote).
    let string_end = |from: usize| {
        let mut j = from + 1;
        while j < bytes.len() {
            match bytes[j] {
                b'\\' => j += 2,
                b'"' => return j + 1,
                _ => j += 1,
            }
        }
        bytes.len()
    };
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\t' | b'\r' | b'\n' | b':' => i += 1,
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object { want_key, .. }) => *want_key = true,
                    Some(Frame::Array { index }) => *index += 1,
                    None => {}
                }
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b'"' if matches!(stack.last(), Some(Frame::Object { want_key: true, .. })) => {
                let end = string_end(i);
                let key = text.get(i + 1..end.saturating_sub(1))?.to_string();
                if let Some(Frame::Object { key: k, want_key }) = stack.last_mut() {
                    *k = Some(key);
                    *want_key = false;
                }
                i = end;
            }
            _ => {
                // A value starts here.
                if matches(&stack) {
                    return Some(i);
                }
                match c {
                    b'{' => {
                        stack.push(Frame::Object {
                            key: None,
                            want_key: true,
                        });
                        i += 1;
                    }
                    b'[' => {
                        stack.push(Frame::Array { index: 0 });
                        i += 1;
                    }
                    b'"' => i = string_end(i),
                    _ => {
                        while i < bytes.len()
                            && !matches!(
                                bytes[i],
                                b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'
                            )
                        {
                            i += 1;
                        }
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_located_by_their_path() {
        let text = "{\n  \"a\": [1, {\"b\": \"x,}\"}],\n  \"c\": {\"d\": 45.60}\n}\n";
        let at = |path: &[Step]| locate(text, path).map(|i| position(text, i));
        assert_eq!(at(&[]), Some((1, 1)));
        assert_eq!(at(&[Step::Key("a")]), Some((2, 8)));
        assert_eq!(
            at(&[Step::Key("a"), Step::Index(1), Step::Key("b")]),
            Some((2, 18))
        );
        assert_eq!(at(&[Step::Key("c"), Step::Key("d")]), Some((3, 14)));
        assert_eq!(at(&[Step::Key("c"), Step::Key("e")]), None);
        assert_eq!(at(&[Step::Key("a"), Step::Index(2)]), None);
    }

    #[test]
    fn json_money_is_read_from_its_digits() {
        let v: Value = serde_json::from_str("[45.6, \"0.0420\", null, 1e-7, -1, true]").unwrap();
        let got: Vec<_> = v.as_array().unwrap().iter().map(money_of).collect();
        assert_eq!(got[0], Ok(Some(Decimal::new(456, 1))));
        assert_eq!(got[1], Ok(Some(Decimal::new(420, 4))));
        assert_eq!(got[2], Ok(None));
        assert_eq!(got[3], Ok(Some(Decimal::new(1, 7))));
        assert!(got[4].as_ref().unwrap_err().contains("negative"));
        assert!(got[5].is_err());
    }

    #[test]
    fn totals_for_several_periods_are_divided_exactly_where_they_can_be() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert_eq!(per_one(d("31057.2"), d("3")), (d("10352.4"), true));
        assert_eq!(per_one(d("100"), d("3")), (d("33.333333"), false));
        assert_eq!(per_one(d("12.50"), Decimal::ONE), (d("12.50"), true));
    }
}

/// Running a parser over a text, for the tests of every module here.
#[cfg(test)]
pub(super) mod testing {
    use super::super::super::ParseContext;
    use super::super::super::builder::{BuiltRun, ParseFailure, ParseResult, RunBuilder};

    pub(crate) type Parse = fn(&[u8], &mut ParseContext, &mut RunBuilder<'_>) -> ParseResult;

    /// What the parser made of `text`, or why it refused it.
    pub(crate) fn run(
        parse: Parse,
        text: &str,
        skip_bad_lines: bool,
    ) -> Result<BuiltRun, ParseFailure> {
        let mut samples = Vec::new();
        let mut b = RunBuilder::new(&mut samples, skip_bad_lines, None);
        let mut ctx = ParseContext::new("catalog", jiff::tz::TimeZone::UTC);
        parse(text.as_bytes(), &mut ctx, &mut b)?;
        Ok(b.finish())
    }

    /// The line, column and reason of a refusal that names a line.
    pub(crate) fn refusal(parse: Parse, text: &str) -> (u64, Option<usize>, String) {
        match run(parse, text, false) {
            Err(ParseFailure::Line(e)) => (e.line, e.column, e.reason),
            Err(other) => panic!("refused without a line: {other:?}"),
            Ok(_) => panic!("read, not refused"),
        }
    }

    /// The reason of a refusal of the whole file.
    pub(crate) fn whole_refusal(parse: Parse, text: &str) -> String {
        match run(parse, text, false) {
            Err(ParseFailure::Whole(reason)) => reason,
            Err(other) => panic!("refused on a line: {other:?}"),
            Ok(_) => panic!("read, not refused"),
        }
    }
}
