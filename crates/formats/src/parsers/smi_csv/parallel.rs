//! The rows after the first ones, read ahead in blocks on every core
//! (`import::blocks`). A row's cells need only the layout; a line the
//! workers cannot judge alone (a header, an nvidia-smi complaint, a row
//! read under a layout that a header has since replaced, or one timed by
//! the lines before it) is read again in order, line by line.

use std::sync::Arc;

use super::super::super::ParseContext;
use super::super::super::blocks::ReadsAhead;
use super::super::super::builder::{LineError, ParseFailure, ParseResult, RunBuilder};
use super::super::super::lines::Line;
use super::super::super::smi_messages;
use super::super::super::timestamps::TimeReader;
use super::layout::{Layout, is_header};
use super::{LastCells, Reading, RowCells, is_blank, read_cells};

/// What a worker made of a line.
#[derive(Default)]
pub(super) struct Ahead {
    what: What,
    /// A row's cells, read in place (`What::Row`).
    cells: RowCells,
    /// Why they could not be read.
    error: Option<LineError>,
    /// A row that names its GPU by index alone, carries its time, and says
    /// nothing the inventory, the losses or the health findings take up:
    /// once its GPU is known, it is finished by `Reading::finish_plain`.
    plain: bool,
}

#[derive(Clone, Copy, PartialEq, Default)]
enum What {
    #[default]
    Blank,
    /// A line for `Reading::line` (a header, a message, …).
    Other,
    Row,
}

/// A worker's own: its time reader, and whether its block holds a quote.
pub(super) struct Worker {
    times: TimeReader,
    last: LastCells,
    quotes: bool,
}

impl ReadsAhead for Reading {
    /// The layout rows are read under, and its version.
    type Plan = (Arc<Layout>, u64);
    type Worker = Worker;
    type Ahead = Ahead;

    fn ready(&self) -> bool {
        self.layout.is_some() && self.rows > 0
    }

    fn plan(&self) -> ParseResult<Self::Plan> {
        match &self.layout {
            Some(layout) => Ok((layout.clone(), self.layout_version)),
            None => Err(ParseFailure::Whole("the file holds no rows".into())),
        }
    }

    fn worker(&self, ctx: &ParseContext) -> Worker {
        Worker {
            times: TimeReader::new(ctx.times.zone().clone()),
            last: LastCells::default(),
            quotes: true,
        }
    }

    fn start_block(worker: &mut Worker, text: &str) {
        // Quoted cells are rare: one search of the block spares one per row.
        worker.quotes = memchr::memchr(b'"', text.as_bytes()).is_some();
    }

    fn read_ahead(plan: &Self::Plan, worker: &mut Worker, line: &Line<'_>, ahead: &mut Ahead) {
        // A row starts with a digit (its time or index); blanks, messages
        // and headers never do: one byte spares the three checks.
        ahead.what = if line.text.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            What::Row
        } else if is_blank(line.text) {
            What::Blank
        } else if smi_messages::recognise(line.text).is_some() || is_header(line.text) {
            What::Other
        } else {
            What::Row
        };
        ahead.error = None;
        ahead.plain = false;
        if ahead.what == What::Row {
            ahead.cells.clear();
            ahead.error = read_cells(
                &plan.0,
                line,
                &mut worker.times,
                &mut worker.last,
                &mut ahead.cells,
                worker.quotes,
            )
            .err();
            ahead.plain = ahead.error.is_none() && ahead.cells.is_plain(plan.0.has_mask);
        }
    }

    fn finish(
        &mut self,
        plan: &Self::Plan,
        line: &Line<'_>,
        ahead: &mut Ahead,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        match ahead.what {
            What::Blank => Ok(()),
            What::Row if self.takes_cells_read_ahead(plan.1) => {
                if ahead.plain
                    && let Some(finished) = self.finish_plain(&mut ahead.cells, b)
                {
                    return finished;
                }
                let cells = match ahead.error.take() {
                    Some(e) => Err(e),
                    None => Ok(&mut ahead.cells),
                };
                self.row(cells, line, ctx, b)
            }
            _ => self.line(line, ctx, b),
        }
    }

    fn line(
        &mut self,
        line: &Line<'_>,
        ctx: &mut ParseContext,
        b: &mut RunBuilder<'_>,
    ) -> ParseResult {
        Reading::line(self, line, ctx, b)
    }
}
