//! Nominal peaks per accelerator model, from the vendors' public
//! datasheets (`peaks.csv`, kept as data: one figure per row with the
//! document it comes from and its date), and a measured figure as a share
//! of them — "is my number normal?" answered against the label on the box.

use std::sync::OnceLock;

use serde::Serialize;

use crate::accelerator::{Accelerator, FormFactor};

const TABLE: &str = include_str!("peaks.csv");

/// One nominal figure of one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Peak {
    pub model: String,
    pub form: Option<FormFactor>,
    pub memory_gb: Option<u32>,
    /// fp32, tf32, bf16, fp16, fp8 (dense matrix rates) or memory.
    pub figure: String,
    pub value: f64,
    pub unit: String,
    pub source: String,
    /// When the source was published (YYYY-MM).
    pub date: String,
    pub note: Option<String>,
}

impl Peak {
    /// "989.5 TFLOP/s (NVIDIA H200 Tensor Core GPU datasheet, 2024-11)".
    pub fn cited(&self) -> String {
        format!(
            "{} {} ({}, {})",
            self.value, self.unit, self.source, self.date
        )
    }
}

/// Every row of the table, read once.
pub fn peaks() -> &'static [Peak] {
    static PEAKS: OnceLock<Vec<Peak>> = OnceLock::new();
    PEAKS.get_or_init(|| read(TABLE).expect("peaks.csv is checked by its tests"))
}

/// The figures a row may give, with their units.
const FIGURES: &[(&str, &str)] = &[
    ("fp32", "TFLOP/s"),
    ("tf32", "TFLOP/s"),
    ("bf16", "TFLOP/s"),
    ("fp16", "TFLOP/s"),
    ("fp8", "TFLOP/s"),
    ("memory", "GB/s"),
    ("nvlink", "GB/s"),
];

fn read(text: &str) -> Result<Vec<Peak>, String> {
    let mut rows = Vec::new();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let header = lines.next().ok_or("no header")?.1;
    if header != "model,form,memory_gb,figure,value,unit,source,date,note" {
        return Err(format!("unexpected header {header}"));
    }
    for (i, line) in lines {
        let at = format!("peaks.csv line {}", i + 1);
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let [model, form, memory, figure, value, unit, source, date, note] = cells[..] else {
            return Err(format!("{at}: {} cells, 9 expected", cells.len()));
        };
        let form = match form {
            "" => None,
            f => Some(
                f.to_ascii_lowercase()
                    .parse::<FormFactor>()
                    .map_err(|e| format!("{at}: {e}"))?,
            ),
        };
        let memory_gb = match memory {
            "" => None,
            m => Some(m.parse().map_err(|e| format!("{at}: memory_gb: {e}"))?),
        };
        let value: f64 = value.parse().map_err(|e| format!("{at}: value: {e}"))?;
        if !(value.is_finite() && value > 0.0) {
            return Err(format!("{at}: value must be positive"));
        }
        match FIGURES.iter().find(|(f, _)| *f == figure) {
            Some((_, u)) if *u == unit => {}
            Some((_, u)) => return Err(format!("{at}: {figure} is in {u}, not {unit}")),
            None => return Err(format!("{at}: figure {figure} is not one of the table's")),
        }
        if model.is_empty() || source.is_empty() {
            return Err(format!("{at}: every row names its model and its source"));
        }
        let dated = date.len() == 7
            && date.as_bytes()[4] == b'-'
            && date[..4]
                .parse::<u32>()
                .is_ok_and(|y| (2015..=2030).contains(&y))
            && date[5..]
                .parse::<u32>()
                .is_ok_and(|m| (1..=12).contains(&m));
        if !dated {
            return Err(format!("{at}: date {date:?} is not YYYY-MM"));
        }
        rows.push(Peak {
            model: model.into(),
            form,
            memory_gb,
            figure: figure.into(),
            value,
            unit: unit.into(),
            source: source.into(),
            date: date.into(),
            note: (!note.is_empty()).then(|| note.to_string()),
        });
    }
    Ok(rows)
}

/// The nominal `figure` of the card, where the table knows its model well
/// enough to tell: a row matches on the model, and on form factor and
/// memory where both the row and the card say them; rows that still
/// disagree (an H100 that does not say whether it is SXM or PCIe) give none.
pub fn nominal(card: &Accelerator, figure: &str) -> Option<&'static Peak> {
    let fits = |p: &&Peak| {
        p.figure == figure
            && p.model.eq_ignore_ascii_case(&card.model)
            && p.form.zip(card.form_factor).is_none_or(|(a, b)| a == b)
            && p.memory_gb.zip(card.memory_gb).is_none_or(|(a, b)| a == b)
    };
    let mut rows = peaks().iter().filter(fits);
    let first = rows.next()?;
    rows.all(|p| p.value == first.value).then_some(first)
}

/// The figure a test's result is held against: a matrix product's dtype,
/// the memory bandwidth for a device copy, a GPU's NVLink bandwidth (one
/// way) for a collective's bus bandwidth inside one node.
pub fn figure_of(test: &str, dtype: Option<&str>) -> Option<&'static str> {
    match (test, dtype) {
        ("gemm", Some(d)) => FIGURES.iter().map(|(f, _)| *f).find(|f| *f == d),
        ("device_copy", _) => Some("memory"),
        // nccl-tests scales every collective's bus bandwidth to compare
        // with one GPU's link.
        (t, _) if super::COLLECTIVES.contains(&t) => Some("nvlink"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accelerator::normalise;

    #[test]
    fn every_row_names_its_source_date_and_unit() {
        let rows = read(TABLE).unwrap();
        assert!(rows.len() >= 60, "{}", rows.len());
        for model in [
            "H200",
            "H100",
            "A100",
            "L40S",
            "A10",
            "RTX 4090",
            "MI300X",
            "MLU370-X8",
        ] {
            assert!(rows.iter().any(|r| r.model == model), "{model}");
        }
        // Each model the table names is one the name normaliser knows.
        for r in &rows {
            let card = normalise(&r.model);
            assert!(
                card.known && card.model == r.model,
                "{} → {}",
                r.model,
                card.model
            );
        }
        for (bad, expected) in [
            ("H200,SXM,,bf16,989.5,GB/s,x,2024-11,", "bf16 is in TFLOP/s"),
            (
                "H200,SXM,,bf16,989.5,TFLOP/s,,2024-11,",
                "names its model and its source",
            ),
            ("H200,SXM,,bf16,989.5,TFLOP/s,x,Nov 2024,", "is not YYYY-MM"),
            ("H200,SXM,,bf16,-1,TFLOP/s,x,2024-11,", "must be positive"),
            ("H200,SXM,,int4,1,TFLOP/s,x,2024-11,", "figure int4"),
        ] {
            let text = format!("model,form,memory_gb,figure,value,unit,source,date,note\n{bad}\n");
            let e = read(&text).unwrap_err();
            assert!(e.contains(expected), "{e}");
        }
    }

    #[test]
    fn a_card_finds_its_figure_only_where_its_name_tells() {
        let h200 = normalise("NVIDIA H200");
        assert_eq!(nominal(&h200, "bf16").unwrap().value, 989.5);
        assert_eq!(nominal(&h200, "memory").unwrap().value, 4800.0);
        let sxm = normalise("NVIDIA H100 80GB HBM3");
        assert_eq!(nominal(&sxm, "bf16").unwrap().value, 989.5);
        assert_eq!(
            nominal(&normalise("NVIDIA H100 PCIe"), "bf16")
                .unwrap()
                .value,
            756.0
        );
        // A100 80GB: the compute is the same, the memory differs by form.
        let a100 = normalise("NVIDIA A100 80GB");
        assert_eq!(nominal(&a100, "bf16").unwrap().value, 312.0);
        assert_eq!(nominal(&a100, "memory"), None);
        assert_eq!(
            nominal(&normalise("NVIDIA A100-SXM4-80GB"), "memory")
                .unwrap()
                .value,
            2039.0
        );
        assert_eq!(nominal(&normalise("Ascend910B3"), "bf16"), None);
    }
}
