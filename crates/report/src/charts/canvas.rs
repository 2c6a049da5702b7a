//! A pixel canvas over plotters' SVG backend for the charts that are
//! really tables of bars (ranking, heatmap, acceptability): exact placement
//! of every label, no axis guessing.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{ChartError, FONT, INK};

pub struct Canvas<'a> {
    pub area: DrawingArea<SVGBackend<'a>, Shift>,
    chart: &'static str,
}

#[derive(Clone, Copy)]
pub enum Align {
    Left,
    Centre,
    Right,
}

impl<'a> Canvas<'a> {
    pub fn new(
        buf: &'a mut String,
        size: (u32, u32),
        chart: &'static str,
    ) -> Result<Self, ChartError> {
        let area = SVGBackend::with_string(buf, size).into_drawing_area();
        area.fill(&WHITE).map_err(super::fail(chart))?;
        Ok(Self { area, chart })
    }

    pub fn rect(
        &self,
        x0: i32,
        y0: i32,
        x1: i32,
        y1: i32,
        colour: RGBColor,
    ) -> Result<(), ChartError> {
        self.area
            .draw(&Rectangle::new([(x0, y0), (x1, y1)], colour.filled()))
            .map_err(super::fail(self.chart))
    }

    pub fn outline(
        &self,
        x0: i32,
        y0: i32,
        x1: i32,
        y1: i32,
        colour: RGBColor,
    ) -> Result<(), ChartError> {
        self.area
            .draw(&Rectangle::new(
                [(x0, y0), (x1, y1)],
                colour.stroke_width(1),
            ))
            .map_err(super::fail(self.chart))
    }

    pub fn line(
        &self,
        from: (i32, i32),
        to: (i32, i32),
        colour: RGBColor,
        width: u32,
    ) -> Result<(), ChartError> {
        self.area
            .draw(&PathElement::new(
                vec![from, to],
                colour.stroke_width(width),
            ))
            .map_err(super::fail(self.chart))
    }

    pub fn text(
        &self,
        at: (i32, i32),
        text: &str,
        size: u32,
        colour: RGBColor,
        align: Align,
    ) -> Result<(), ChartError> {
        let h = match align {
            Align::Left => HPos::Left,
            Align::Centre => HPos::Center,
            Align::Right => HPos::Right,
        };
        let style = TextStyle::from((FONT, size).into_font())
            .color(&colour)
            .pos(Pos::new(h, VPos::Center));
        self.area
            .draw_text(text, &style, at)
            .map_err(super::fail(self.chart))
    }

    pub fn title(&self, text: &str) -> Result<(), ChartError> {
        self.text((16, 18), text, 17, INK, Align::Left)
    }

    pub fn finish(self) -> Result<(), ChartError> {
        self.area.present().map_err(super::fail(self.chart))
    }
}

/// Shorten a label to about `max` characters (CJK characters count double).
pub fn fit(text: &str, max: usize) -> String {
    let mut width = 0;
    let mut out = String::new();
    for c in text.chars() {
        let w = if crate::fonts::needs_cjk(&c.to_string()) {
            2
        } else {
            1
        };
        if width + w > max {
            out.push('…');
            return out;
        }
        width += w;
        out.push(c);
    }
    out
}
