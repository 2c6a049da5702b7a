//! The reference job's energy per platform: measured GPU power, estimated
//! facility factors, said apart.

use crate::layout::{Align, Column, Layout, MUTED};
use crate::model::ReportData;
use crate::text::t;

use super::ReportOptions;

pub(super) fn energy(l: &mut Layout, data: &ReportData, options: &ReportOptions) {
    let lang = options.lang;
    if data.energy.is_empty() {
        return;
    }
    l.page();
    l.heading(t(lang, "energy"));
    let cols = [
        Column::new(t(lang, "platform"), 210.0, Align::Left),
        Column::new(t(lang, "gpu_kwh"), 100.0, Align::Right),
        Column::new(t(lang, "facility_kwh"), 110.0, Align::Right),
        Column::new("CO₂", 90.0, Align::Right),
        Column::new(t(lang, "factors"), 190.0, Align::Left),
    ];
    let rows: Vec<Vec<String>> = data
        .energy
        .iter()
        .map(|(platform, e)| {
            vec![
                platform.clone(),
                format!("{:.2} kWh", e.gpu_kwh),
                format!("{:.2} kWh", e.facility_kwh),
                format!("{:.2} kg", e.co2_kg),
                format!(
                    "PUE {}, {} g/kWh{}",
                    e.factors.pue,
                    e.factors.grid_g_per_kwh,
                    if e.factors.set { "" } else { " *" }
                ),
            ]
        })
        .collect();
    l.table(&cols, &rows, 10.0);
    l.paragraph(t(lang, "energy_note"), 9.5, MUTED);
}
