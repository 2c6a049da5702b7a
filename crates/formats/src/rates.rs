//! Exchange-rate files, read as a stream: the ECB's reference-rate CSV as
//! downloaded (`Date,USD,JPY,…`, one row a day, every currency per euro,
//! "N/A" where none) or a table of `date,from,to,rate[,source]`. Cells are
//! read with CSV's quoting rules (`"1,05"` is one cell), comma- or
//! semicolon-separated as spreadsheets save them; a rate is read by
//! [`money::parse_rate`], the one rule `rates add` uses too. Every refusal
//! names the file, line and column; nothing is shifted into the next cell.
//!
//! The read is bounded twice: in bytes, by what is read and not by what the
//! file claims to be (a device or a pipe says 0), and in rates.

use std::io::{BufRead, BufReader, Read};

use jiff::civil::Date;

use crate::domain::money::{self, ExchangeRate};
use crate::domain::validate;

/// The most bytes a rates file may hold: the ECB's whole history since
/// 1999 is about 1.5 MB.
pub const MAX_BYTES: u64 = 64 << 20;

/// The most rates one file may hold: the ECB's history is about 300 000
/// (41 currencies, 7 000 days).
pub const MAX_RATES: u64 = 2_000_000;

/// Which of the two shapes the file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateTable {
    /// The ECB's: a column per currency, each per euro.
    Ecb,
    /// A row per rate: date, from, to, rate and a source.
    Pairs,
}

/// What a file held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RatesRead {
    pub table: RateTable,
    pub rates: u64,
    pub first: Option<Date>,
    pub last: Option<Date>,
}

/// Read `input` (named `name` in messages), handing each rate to `each` as
/// it is read; `each` refuses with a reason, said at the rate's line and
/// column.
pub fn read_rates<R: Read>(
    name: &str,
    input: R,
    each: impl FnMut(ExchangeRate) -> Result<(), String>,
) -> Result<RatesRead, String> {
    read_within(name, input, (MAX_BYTES, MAX_RATES), each)
}

/// [`read_rates`] within `(bytes, rates)`.
fn read_within<R: Read>(
    name: &str,
    input: R,
    (max_bytes, max_rates): (u64, u64),
    mut each: impl FnMut(ExchangeRate) -> Result<(), String>,
) -> Result<RatesRead, String> {
    let name = crate::text::printable(name);
    let too_large = |name: &str| too_large(name, max_bytes);
    let mut bounded = BufReader::new(Bounded {
        inner: input,
        read: 0,
        limit: max_bytes,
    });
    let delimiter = sniff_delimiter(&mut bounded).map_err(|e| {
        if bounded.get_ref().read > max_bytes {
            too_large(&name)
        } else {
            format!("{name}: {e}")
        }
    })?;
    let mut csv = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .trim(csv::Trim::All)
        .from_reader(bounded);
    let mut record = csv::StringRecord::new();
    let at = |line: u64, column: usize, reason: String| {
        format!("{name}:{line}:{}: {reason}", column + 1)
    };
    let next = |csv: &mut csv::Reader<BufReader<Bounded<R>>>, record: &mut csv::StringRecord| {
        csv.read_record(record).map_err(|e| {
            if csv.get_ref().get_ref().read > max_bytes {
                too_large(&name)
            } else {
                let line = e.position().map_or(0, |p| p.line());
                match e.kind() {
                    csv::ErrorKind::Utf8 { .. } => format!("{name}:{line}: not UTF-8 text"),
                    _ => format!("{name}:{line}: {e}"),
                }
            }
        })
    };
    if !next(&mut csv, &mut record)? {
        return Err(format!("{name}: empty: no rates"));
    }
    let written: Vec<String> = record
        .iter()
        .map(|c| {
            c.trim_start_matches('\u{feff}')
                .trim_matches('"')
                .to_string()
        })
        .collect();
    let header: Vec<String> = written.iter().map(|c| c.to_ascii_lowercase()).collect();
    let header_line = record.position().map_or(1, |p| p.line());
    let find = |column: &str| header.iter().position(|c| c == column);
    let table = if find("date") == Some(0) && find("from").is_none() && find("rate").is_none() {
        RateTable::Ecb
    } else if let (Some(_), Some(_), Some(_), Some(_)) =
        (find("date"), find("from"), find("to"), find("rate"))
    {
        RateTable::Pairs
    } else {
        return Err(format!(
            "{name}:{header_line}: neither the ECB's reference-rate CSV (Date,USD,JPY,…) nor a table of date,from,to,rate[,source]"
        ));
    };
    // The ECB's columns, checked once: each a currency, none twice.
    let mut codes: Vec<Option<String>> = vec![None; header.len()];
    if table == RateTable::Ecb {
        for (k, column) in written.iter().enumerate().skip(1) {
            if column.is_empty() {
                continue;
            }
            let code =
                validate::currency("currency", column).map_err(|e| at(header_line, k, e.reason))?;
            if let Some(first) = codes
                .iter()
                .position(|c| c.as_deref() == Some(code.as_str()))
            {
                return Err(at(
                    header_line,
                    k,
                    format!("{code} a second time (first in column {})", first + 1),
                ));
            }
            codes[k] = Some(code);
        }
    }
    let mut read = RatesRead {
        table,
        rates: 0,
        first: None,
        last: None,
    };
    let mut hand = |rate: ExchangeRate, line: u64, column: usize, read: &mut RatesRead| {
        read.rates += 1;
        if read.rates > max_rates {
            return Err(format!(
                "{name}: more than {max_rates} rates: a rates file holds at most that many (the ECB's whole history is about 300 000)"
            ));
        }
        read.first = Some(read.first.map_or(rate.on, |d| d.min(rate.on)));
        read.last = Some(read.last.map_or(rate.on, |d| d.max(rate.on)));
        each(rate).map_err(|reason| at(line, column, reason))
    };
    while next(&mut csv, &mut record)? {
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != header.len() {
            let hint = if record.len() > header.len() {
                match delimiter {
                    b',' => ": a decimal comma must be quoted (\"7,10\")",
                    _ => "",
                }
            } else {
                ""
            };
            return Err(format!(
                "{name}:{line}: the row has {} cells but the header names {}{hint}",
                record.len(),
                header.len()
            ));
        }
        let cell = |k: usize| record.get(k).unwrap_or("").trim_matches('"');
        let day = |k: usize| {
            cell(k).parse::<Date>().map_err(|_| {
                at(
                    line,
                    k,
                    format!(
                        "\"{}\" is not a date (2026-12-01)",
                        crate::text::printable_excerpt(cell(k), 40)
                    ),
                )
            })
        };
        match table {
            RateTable::Ecb => {
                let on = day(0)?;
                for (k, code) in codes.iter().enumerate() {
                    let Some(code) = code else { continue };
                    let text = cell(k);
                    if text.is_empty() || text.eq_ignore_ascii_case("n/a") {
                        continue;
                    }
                    let rate =
                        money::parse_rate("rate", text).map_err(|e| at(line, k, e.reason))?;
                    let rate = ExchangeRate::new(
                        "EUR",
                        code,
                        rate,
                        on,
                        Some("ECB euro reference rates".into()),
                    )
                    .map_err(|e| at(line, k, e.reason))?;
                    hand(rate, line, k, &mut read)?;
                }
            }
            RateTable::Pairs => {
                let column = |c: &str| find(c).unwrap_or(0);
                let (d, f, t, r) = (column("date"), column("from"), column("to"), column("rate"));
                let on = day(d)?;
                let rate = money::parse_rate("rate", cell(r)).map_err(|e| at(line, r, e.reason))?;
                let source = find("source").map(|s| cell(s).to_string());
                let rate = ExchangeRate::new(cell(f), cell(t), rate, on, source).map_err(|e| {
                    let k = match e.field.as_str() {
                        "from" => f,
                        "to" => t,
                        "source" => find("source").unwrap_or(r),
                        _ => r,
                    };
                    at(line, k, e.reason)
                })?;
                hand(rate, line, r, &mut read)?;
            }
        }
    }
    if read.rates == 0 {
        return Err(format!("{name}: no rates in it"));
    }
    Ok(read)
}

/// A reader that counts what it gives and stops one byte past `limit`: the
/// size is what is read, whatever the file claims.
struct Bounded<R> {
    inner: R,
    read: u64,
    limit: u64,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.read > self.limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                "larger than a rates file",
            ));
        }
        let room = (self.limit + 1 - self.read).min(buf.len() as u64) as usize;
        let n = self.inner.read(&mut buf[..room])?;
        self.read += n as u64;
        Ok(n)
    }
}

fn too_large(name: &str, limit: u64) -> String {
    format!(
        "{name}: larger than {} MiB: a rates file holds at most that (the ECB's whole history is about 1.5 MB)",
        limit >> 20
    )
}

/// `;` where the first line has more of them than commas (a spreadsheet
/// saved where the decimal separator is a comma), else `,`.
fn sniff_delimiter<R: Read>(reader: &mut BufReader<R>) -> std::io::Result<u8> {
    let head = reader.fill_buf()?;
    let first = head.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let count = |c: u8| first.iter().filter(|b| **b == c).count();
    Ok(if count(b';') > count(b',') {
        b';'
    } else {
        b','
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// (day, from, to, rate, source) of each rate read.
    type RateRead = (String, String, String, String, Option<String>);

    fn read(text: &str) -> Result<Vec<RateRead>, String> {
        let mut out = Vec::new();
        read_rates("r.csv", text.as_bytes(), |r| {
            out.push((r.on.to_string(), r.from, r.to, r.rate.to_string(), r.source));
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn the_ecb_table_and_a_plain_table_are_read() {
        let ecb = "Date,USD,JPY,BGN,CYP,\n2026-12-01,1.0512,160.12,N/A,N/A,\n2026-11-30,1.0498,159.8,N/A,N/A,\n";
        let rates = read(ecb).unwrap();
        assert_eq!(rates.len(), 4);
        assert_eq!(
            rates[0],
            (
                "2026-12-01".into(),
                "EUR".into(),
                "USD".into(),
                "1.0512".into(),
                Some("ECB euro reference rates".into())
            )
        );
        let plain = "date,from,to,rate,source\n2026-12-01,USD,CNY,7.10,bank\n";
        assert_eq!(read(plain).unwrap()[0].4.as_deref(), Some("bank"));
        let e = read("date,from,to,rate\n2026-12-01,USD,CNY,seven\n").unwrap_err();
        assert!(e.starts_with("r.csv:2:4: \"seven\" is not a rate"), "{e}");
        let e = read("date,from,to,rate\n2026-13-01,USD,CNY,7\n").unwrap_err();
        assert!(e.starts_with("r.csv:2:1:"), "{e}");
        assert!(read("a,b\n1,2\n").is_err());
    }

    /// Quoted cells are one cell each: a decimal comma inside quotes is a
    /// decimal comma, a comma in a quoted source is part of it, and an
    /// unquoted decimal comma is refused, never shifted into the next cell.
    #[test]
    fn quoting_is_read_as_csv_and_nothing_shifts() {
        let ecb = read("\"Date\",\"USD\",\"JPY\"\n\"2026-12-01\",\"1,05\",\"160\"\n").unwrap();
        assert_eq!(ecb[0].3, "1.05");
        assert_eq!(ecb[1].3, "160");
        let plain =
            read("date,from,to,rate,source\n2026-12-01,USD,CNY,\"7,10\",\"Bank, Inc\"\n").unwrap();
        assert_eq!(plain[0].3, "7.10");
        assert_eq!(plain[0].4.as_deref(), Some("Bank, Inc"));
        let e = read("date,from,to,rate,source\n2026-12-01,USD,CNY,7,10,bank\n").unwrap_err();
        assert!(
            e.contains("r.csv:2: the row has 6 cells but the header names 5"),
            "{e}"
        );
        assert!(e.contains("decimal comma must be quoted"), "{e}");
        // Saved where a comma is the decimal separator: semicolons.
        let semi = read("date;from;to;rate\n2026-12-01;USD;CNY;7,1\n").unwrap();
        assert_eq!(semi[0].3, "7.1");
        // A comma that may group thousands is refused, naming the cell.
        let e = read("date;from;to;rate\n2026-12-01;USD;JPY;1,050\n").unwrap_err();
        assert!(e.starts_with("r.csv:2:4: \"1,050\""), "{e}");
    }

    #[test]
    fn exponents_underscores_made_up_and_repeated_currencies_are_refused() {
        for rate in ["7e2", "7_000", "1e15"] {
            let e = read(&format!("date,from,to,rate\n2026-12-01,USD,CNY,{rate}\n")).unwrap_err();
            assert!(e.starts_with("r.csv:2:4:"), "{rate}: {e}");
        }
        let e = read("Date,USD,AAB\n2026-12-01,1,2\n").unwrap_err();
        assert!(
            e.starts_with("r.csv:1:3: \"AAB\" is not an ISO 4217"),
            "{e}"
        );
        let e = read("Date,USD,JPY,USD\n2026-12-01,1,2,3\n").unwrap_err();
        assert_eq!(e, "r.csv:1:4: USD a second time (first in column 2)");
        let e =
            read("date,from,to,rate,source\n2026-12-01,USD,CNY,7,\"a\u{1b}[31m\"\n").unwrap_err();
        assert!(e.starts_with("r.csv:2:5:"), "{e}");
    }

    #[test]
    fn the_read_is_bounded_by_what_is_read_not_by_what_is_claimed() {
        // An endless stream of zeros, as /dev/zero gives.
        let limits = (2 << 20, 1000);
        let zeros = std::io::repeat(0);
        let e = read_within("/dev/zero", zeros, limits, |_| Ok(())).unwrap_err();
        assert!(e.contains("larger than 2 MiB"), "{e}");
        // An endless stream of rows of rates: stopped at the count.
        let rows = std::io::Cursor::new(b"date,from,to,rate\n".to_vec())
            .chain(RepeatLine(b"2026-12-01,USD,CNY,7\n", 0));
        let mut handed = 0u64;
        let e = read_within("rows", rows, limits, |_| {
            handed += 1;
            Ok(())
        })
        .unwrap_err();
        assert!(e.contains("more than 1000 rates"), "{e}");
        assert_eq!(handed, 1000);
    }

    /// One line, over and over.
    struct RepeatLine(&'static [u8], usize);

    impl Read for RepeatLine {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let mut n = 0;
            while n < buf.len() {
                buf[n] = self.0[self.1];
                self.1 = (self.1 + 1) % self.0.len();
                n += 1;
            }
            Ok(n)
        }
    }
}
