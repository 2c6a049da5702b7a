//! Where the reading of an nvidia-smi CSV stands between two lines: the
//! layout in force, the clock of rows without times, what the inventory
//! has learnt; and one line read against it, whatever it holds. Both the
//! line-by-line reading and the blocks read on every core (`parallel`) go
//! through here, so they read a file the same way.

use std::sync::Arc;

use super::super::super::ParseContext;
use super::super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::super::lines::Line;
use super::super::super::smi_messages;
use super::super::RoundClock;
use super::super::memory_health::Reported;
use super::layout::{Column, Layout, infer_layout, is_header};
use super::{LastCells, RowCells, RowError, finish_row, is_blank, read_cells};

/// Where the reading of a file stands between two lines.
pub(super) struct Reading {
    pub(super) layout: Option<Arc<Layout>>,
    /// Counts layout changes, so that rows read ahead under an earlier
    /// layout are read again.
    pub(super) layout_version: u64,
    clock: Option<RoundClock>,
    /// Whether the clock's times are the output's or the user's (a `date`
    /// line, `--start`) rather than made up (from 1970, or the file's
    /// time): only those time a health finding.
    clock_given: bool,
    inventory_done: Vec<bool>,
    /// Health findings already on the run.
    reported: Reported,
    unknown_reported: bool,
    /// With no id column, GPUs are told apart by their place among rows
    /// that share a timestamp.
    positional: (i64, u32),
    /// Rows without times read as one snapshot at the file's time.
    snapshot: bool,
    pub(super) rows: u64,
    /// The last value cells of the rows read here, line by line.
    last: LastCells,
}

impl Reading {
    pub(super) fn new(ctx: &ParseContext) -> ParseResult<Self> {
        let layout = match &ctx.fields {
            Some(fields) => Some(Arc::new(
                Layout::from_names(fields, None).map_err(ParseFailure::Whole)?,
            )),
            None => None,
        };
        Ok(Self {
            layout,
            layout_version: 0,
            clock: None,
            clock_given: false,
            inventory_done: Vec::new(),
            reported: Reported::default(),
            unknown_reported: false,
            positional: (i64::MIN, 0),
            snapshot: false,
            rows: 0,
            last: LastCells::default(),
        })
    }

    pub(super) fn finish(self, b: &RunBuilder<'_>) -> ParseResult {
        if self.layout.is_none() {
            return Err(ParseFailure::Whole("the file holds no rows".into()));
        }
        if self.snapshot && self.rows > b.gpu_count() as u64 {
            // Several rows per GPU and no times: a loop, whose rows cannot
            // all have been taken when the file was written.
            return Err(no_times());
        }
        Ok(())
    }

    /// Whether a row whose cells were read ahead under layout `version`
    /// is read as `line` would read it now: the same layout, and a time
    /// for it without consulting the lines before it.
    pub(super) fn takes_cells_read_ahead(&self, version: u64) -> bool {
        version == self.layout_version
            && self
                .layout
                .as_ref()
                .is_some_and(|l| l.has_time || self.clock.is_some())
    }

    /// One line, whatever it holds.
    pub(super) fn line(
        &mut self,
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        let text = line.text;
        if is_blank(text) {
            return Ok(());
        }
        if let Some(message) = smi_messages::recognise(text) {
            b.smi_message(line.number, message);
            return Ok(());
        }
        if is_header(text) {
            return self.header(line, b);
        }
        let layout = match &self.layout {
            Some(layout) => layout.clone(),
            None => match infer_layout(text) {
                Ok((inferred, warnings)) => {
                    for w in warnings {
                        b.warn(w);
                    }
                    let inferred = Arc::new(inferred);
                    self.set_layout(inferred.clone());
                    inferred
                }
                // A `date` line before the first header-less rows.
                Err(_) if let Some(t) = ctx.times.parse_date_line(text) => {
                    self.clock = Some(clock_from_date(t, ctx, b));
                    self.clock_given = true;
                    return Ok(());
                }
                Err(e) => return Err(LineError::new(line.number, None, e).into()),
            },
        };
        if !layout.has_time && self.clock.is_none() {
            // `date` before the rows (`while :; do date; nvidia-smi …; done`)
            // times them, interval or not.
            if let Some(t) = ctx.times.parse_date_line(text) {
                self.clock = Some(clock_from_date(t, ctx, b));
                self.clock_given = true;
                return Ok(());
            }
            self.start_clock(ctx, b)?;
        }
        let mut cells = RowCells::new();
        let read = read_cells(
            &layout,
            line,
            &mut ctx.times,
            &mut self.last,
            &mut cells,
            true,
        );
        self.row(read.map(|()| &mut cells), line, ctx, b)
    }

    /// A header line: a new layout unless it repeats the one in force.
    fn header(&mut self, line: &Line<'_>, b: &mut RunBuilder<'_>) -> ParseResult {
        let text = line.text;
        let repeated = self
            .layout
            .as_ref()
            .and_then(|l| l.header_text.as_deref())
            .is_some_and(|h| h == text);
        if repeated {
            return Ok(());
        }
        let names: Vec<String> = text.split(',').map(str::to_string).collect();
        let new = Layout::from_names(&names, Some(text.to_string()))
            .map_err(|e| LineError::new(line.number, None, e))?;
        if !self.unknown_reported {
            let unknown: Vec<&str> = new
                .columns
                .iter()
                .filter(|(c, _, _)| *c == Column::Unknown)
                .map(|(_, _, n)| n.as_str())
                .collect();
            if !unknown.is_empty() {
                b.metadata
                    .insert("unknown_columns".into(), serde_json::json!(unknown));
                self.unknown_reported = true;
            }
        }
        self.set_layout(Arc::new(new));
        Ok(())
    }

    fn set_layout(&mut self, layout: Arc<Layout>) {
        self.layout = Some(layout);
        self.layout_version += 1;
    }

    /// The clock for rows without times: from `--interval` and `--start`,
    /// or one snapshot at the file's time.
    fn start_clock(&mut self, ctx: &ParseContext, b: &mut RunBuilder<'_>) -> ParseResult {
        let interval = match (ctx.interval_ms.or(b.interval_ms), ctx.start, ctx.file_time) {
            (Some(interval), _, _) => interval,
            // One snapshot (`nvidia-smi --query-gpu=… --format=csv >
            // snap.csv`): taken when the file was written. More than one
            // row per GPU is refused at the end.
            (None, None, Some(written)) => {
                b.warn(format!(
                    "the rows carry no time: read as one snapshot taken when the file was written, {}",
                    crate::text::time_words(written)
                ));
                self.snapshot = true;
                self.clock = Some(RoundClock::new(written.as_millisecond(), 0));
                return Ok(());
            }
            (None, _, _) => return Err(no_times()),
        };
        self.clock_given = ctx.start.is_some();
        let start_ms = super::super::dateless_origin_ms(ctx, b, "the rows");
        self.clock = Some(RoundClock::new(start_ms, i64::from(interval)));
        Ok(())
    }

    /// A row whose cells have been read (here or ahead, on another core).
    /// A plain row (`RowCells::is_plain`) of a GPU already in the
    /// inventory, finished as `row` would finish it, without the questions
    /// whose answers are known: its sample is the cells' values at their
    /// time, for the GPU its index names. `None` where the GPU is new, for
    /// `row` to take in.
    pub(super) fn finish_plain(
        &mut self,
        cells: &mut RowCells,
        b: &mut RunBuilder<'_>,
    ) -> Option<ParseResult> {
        let (Some(gpu), Some(t_ms)) = (cells.index, cells.t_ms) else {
            return None;
        };
        if !self
            .inventory_done
            .get(gpu as usize)
            .copied()
            .unwrap_or(false)
        {
            return None;
        }
        self.rows += 1;
        cells.sample.gpu = gpu;
        cells.sample.t_ms = t_ms;
        Some(b.sample(&cells.sample))
    }

    pub(super) fn row(
        &mut self,
        cells: Result<&mut RowCells, LineError>,
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        self.rows += 1;
        // The layout is borrowed, not cloned: the workers hold the same
        // `Arc`, and counting it up and down for every row made its count
        // travel between the cores (6 % of an import).
        let Reading {
            layout,
            inventory_done,
            clock,
            clock_given,
            positional,
            reported,
            ..
        } = self;
        let Some(layout) = layout.as_deref() else {
            return Ok(());
        };
        // Finished in place: a row is a few hundred bytes, and 1.4 M of
        // them moved from call to call showed in the profile.
        let outcome = match cells {
            Ok(cells) => finish_row(
                layout,
                cells,
                line,
                b,
                inventory_done,
                clock.as_mut(),
                positional,
            )
            .map(|()| {
                if !cells.health.is_empty() {
                    let timed = cells.t_ms.is_some() || *clock_given;
                    let at = timed.then_some(cells.sample.t_ms);
                    reported.report(b, cells.sample.gpu, cells.health, at);
                }
            }),
            Err(e) => Err(RowError::Line(e)),
        };
        match outcome {
            Ok(()) => Ok(()),
            // Not a row: a `date` line between two runs of the loop. It
            // times the rows that follow when they carry no time themselves.
            Err(RowError::Line(_)) if let Some(t) = ctx.times.parse_date_line(line.text) => {
                if !layout.has_time {
                    *clock = Some(clock_from_date(t, ctx, b));
                    *clock_given = true;
                }
                Ok(())
            }
            Err(RowError::Line(e)) => b.bad_line(line, e),
            Err(RowError::Store(e)) => Err(e),
        }
    }
}

fn no_times() -> ParseFailure {
    ParseFailure::Whole(
        "the rows carry no timestamp; give the sampling interval with --interval (e.g. --interval 1s)"
            .into(),
    )
}

/// The clock for time-less rows after a `date` line: from that time, one
/// round per interval (with none given, the block's rows share the time).
fn clock_from_date(t_ms: i64, ctx: &ParseContext, b: &RunBuilder<'_>) -> RoundClock {
    let step = ctx.interval_ms.or(b.interval_ms).map_or(0, i64::from);
    RoundClock::new(t_ms, step)
}
