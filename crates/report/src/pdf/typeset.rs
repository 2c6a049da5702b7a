//! The report's fonts, and text shaped with plans made once per font.
//!
//! krilla's `draw_text` parses the font and builds a shaping plan for every
//! string it draws. A 100-platform report draws some 40 000 strings, and
//! that was a fifth of its time; here the face is parsed once per font and
//! a plan kept per script, and krilla only places the glyphs.

use std::ops::Range;
use std::sync::Arc;

use krilla::geom::Point;
use krilla::surface::Surface;
use krilla::text::{Font, GlyphId, KrillaGlyph, TextDirection};
use rustybuzz::{Direction, Language, Script, ShapePlan, UnicodeBuffer};

use crate::error::ReportError;
use crate::fonts::{FontFile, FontSet, needs_cjk};

/// A font as krilla embeds it and as the shaper reads it.
pub(super) struct LoadedFont {
    pub(super) font: Font,
    data: Arc<Vec<u8>>,
    index: u32,
}

pub(super) struct Fonts {
    pub(super) latin: Option<LoadedFont>,
    pub(super) bold: Option<LoadedFont>,
    pub(super) cjk: Option<LoadedFont>,
    pub(super) svg_db: Arc<usvg::fontdb::Database>,
}

pub(super) fn load(set: &FontSet) -> Result<Fonts, ReportError> {
    let mut db = usvg::fontdb::Database::new();
    let mut make = |f: Option<&FontFile>| -> Result<Option<LoadedFont>, ReportError> {
        let Some(f) = f else { return Ok(None) };
        let data = std::fs::read(&f.path).map_err(|e| ReportError::Font {
            path: f.path.display().to_string(),
            reason: e.to_string(),
        })?;
        db.load_font_data(data.clone());
        let data = Arc::new(data);
        Ok(
            Font::new(data.clone().into(), f.index).map(|font| LoadedFont {
                font,
                data,
                index: f.index,
            }),
        )
    };
    let latin = make(set.latin.as_ref())?;
    let bold = make(set.latin_bold.as_ref())?;
    let cjk = make(set.cjk.as_ref())?;
    // Charts say sans-serif: make that a face that has every glyph we use.
    let family = set.cjk.as_ref().or(set.latin.as_ref()).map(|f| f.family);
    if let Some(family) = family {
        db.set_sans_serif_family(family);
    }
    Ok(Fonts {
        latin,
        bold,
        cjk,
        svg_db: Arc::new(db),
    })
}

/// One font's parsed face and the plans made for it so far.
struct Shaper<'f> {
    font: &'f LoadedFont,
    face: Option<rustybuzz::Face<'f>>,
    plans: Vec<(Direction, Script, Option<Language>, ShapePlan)>,
}

impl<'f> Shaper<'f> {
    fn new(font: &'f LoadedFont) -> Self {
        Self {
            font,
            face: rustybuzz::Face::from_slice(&font.data, font.index),
            plans: Vec::new(),
        }
    }

    /// The glyphs of `text`, or `None` when this shaper cannot do it (a
    /// right-to-left script, a face rustybuzz cannot read) and krilla's own
    /// shaping should.
    fn shape(&mut self, text: &str) -> Option<Vec<KrillaGlyph>> {
        let face = self.face.as_ref()?;
        let mut buffer = UnicodeBuffer::new();
        buffer.push_str(text);
        buffer.guess_segment_properties();
        let (direction, script, language) =
            (buffer.direction(), buffer.script(), buffer.language());
        if direction != Direction::LeftToRight {
            return None;
        }
        let known = self
            .plans
            .iter()
            .position(|(d, s, l, _)| *d == direction && *s == script && *l == language);
        let at = match known {
            Some(at) => at,
            None => {
                let plan = ShapePlan::new(face, direction, Some(script), language.as_ref(), &[]);
                self.plans.push((direction, script, language, plan));
                self.plans.len() - 1
            }
        };
        let output = rustybuzz::shape_with_plan(face, &self.plans[at].3, buffer);
        let em = self.font.font.units_per_em();
        let infos = output.glyph_infos();
        let positions = output.glyph_positions();
        Some(
            infos
                .iter()
                .zip(positions)
                .enumerate()
                .map(|(i, (info, pos))| {
                    // A glyph covers the text up to the next cluster.
                    let start = info.cluster as usize;
                    let end = infos[i + 1..]
                        .iter()
                        .find(|next| next.cluster != info.cluster)
                        .map_or(text.len(), |next| next.cluster as usize);
                    KrillaGlyph::new(
                        GlyphId::new(info.glyph_id),
                        pos.x_advance as f32 / em,
                        pos.x_offset as f32 / em,
                        pos.y_offset as f32 / em,
                        pos.y_advance as f32 / em,
                        Range { start, end },
                        None,
                    )
                })
                .collect(),
        )
    }
}

/// Draws the report's text: the font chosen by what the text needs, shaped
/// with the plans kept above.
pub(super) struct Typesetter<'f> {
    latin: Option<Shaper<'f>>,
    bold: Option<Shaper<'f>>,
    cjk: Option<Shaper<'f>>,
}

impl<'f> Typesetter<'f> {
    pub(super) fn new(fonts: &'f Fonts) -> Self {
        Self {
            latin: fonts.latin.as_ref().map(Shaper::new),
            bold: fonts.bold.as_ref().map(Shaper::new),
            cjk: fonts.cjk.as_ref().map(Shaper::new),
        }
    }

    /// Whether any font was found at all.
    pub(super) fn has_font(&self) -> bool {
        self.latin.is_some() || self.cjk.is_some()
    }

    pub(super) fn draw(
        &mut self,
        surface: &mut Surface<'_>,
        at: Point,
        size: f32,
        text: &str,
        bold: bool,
    ) {
        let shaper = if needs_cjk(text) {
            self.cjk.as_mut().or(self.latin.as_mut())
        } else if bold {
            self.bold
                .as_mut()
                .or(self.latin.as_mut())
                .or(self.cjk.as_mut())
        } else {
            self.latin.as_mut().or(self.cjk.as_mut())
        };
        let Some(shaper) = shaper else {
            return;
        };
        let font = shaper.font.font.clone();
        match shaper.shape(text) {
            Some(glyphs) => surface.draw_glyphs(at, &glyphs, font, text, size, false),
            None => surface.draw_text(at, font, size, text, false, TextDirection::Auto),
        }
    }
}
