//! A job's work in a unit that means the same on every card: GPU-hours on
//! a named card, training compute in FLOP (written, or 6·N·D from the
//! parameters and tokens), or GPU-hours on each platform's own card —
//! comparable only where every platform has that card. Each platform's
//! pace is the work ÷ its card's datasheet peak at the job's precision ×
//! its delivered share: an H100 finishes in a third of an A100's hours.

use serde::Serialize;

use crate::accelerator::Accelerator;
use crate::perf::reference::{Peak, nominal};

/// The matrix precision the job runs at (dense rates).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    Bf16,
    Fp16,
    Fp8,
    Tf32,
    Fp32,
}

impl Precision {
    pub fn parse(text: &str) -> Option<Precision> {
        Some(match text.trim().to_ascii_lowercase().as_str() {
            "bf16" => Precision::Bf16,
            "fp16" => Precision::Fp16,
            "fp8" => Precision::Fp8,
            "tf32" => Precision::Tf32,
            "fp32" => Precision::Fp32,
            _ => return None,
        })
    }

    /// The datasheet table's name of the figure.
    pub fn figure(self) -> &'static str {
        match self {
            Precision::Bf16 => "bf16",
            Precision::Fp16 => "fp16",
            Precision::Fp8 => "fp8",
            Precision::Tf32 => "tf32",
            Precision::Fp32 => "fp32",
        }
    }

    /// "BF16".
    pub fn upper(self) -> String {
        self.figure().to_ascii_uppercase()
    }
}

/// The work, as the user wrote it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "as", rename_all = "kebab-case")]
pub enum Work {
    /// GPU-hours on each platform's own card at its datasheet rate
    /// (`work=2000h`, a serving job, a steady workload).
    OwnCard { gpu_hours: f64 },
    /// GPU-hours on a named card at its datasheet rate
    /// (`work=2000h@A100-80GB`): a fixed amount of compute.
    OnCard {
        gpu_hours: f64,
        card: String,
        /// The card's datasheet peak at the job's precision, TFLOP/s.
        tflops: f64,
        /// Where the peak comes from ("… datasheet, 2021-06").
        cited: String,
    },
    /// Training compute (`work=3.2e21FLOP`, or `params=7B,tokens=1T` read
    /// as 6·N·D).
    Compute {
        flop: f64,
        params: Option<f64>,
        tokens: Option<f64>,
    },
}

/// A card's datasheet peak at `precision`, or why there is none: a card
/// the table does not know, or knows only ambiguously (an H100 that does
/// not say SXM or PCIe), is named, never taken as the reference.
pub fn peak_of(card: &Accelerator, precision: Precision) -> Result<&'static Peak, String> {
    if let Some(peak) = nominal(card, precision.figure()) {
        return Ok(peak);
    }
    let rows: Vec<&Peak> = crate::perf::reference::peaks()
        .iter()
        .filter(|p| p.figure == precision.figure() && p.model.eq_ignore_ascii_case(&card.model))
        .collect();
    let form_words = |f: crate::accelerator::FormFactor| match f {
        crate::accelerator::FormFactor::Pcie => "PCIe",
        crate::accelerator::FormFactor::Sxm => "SXM",
        crate::accelerator::FormFactor::Oam => "OAM",
    };
    let forms: Vec<String> = rows
        .iter()
        .filter_map(|p| {
            p.form
                .map(|f| format!("{} {} {} TFLOP/s", p.model, form_words(f), p.value))
        })
        .collect();
    Err(if rows.len() > 1 {
        format!(
            "{} names cards of different {} peaks ({}): say which (e.g. {}-SXM)",
            card.raw,
            precision.upper(),
            forms.join(", "),
            card.model
        )
    } else if crate::perf::reference::peaks()
        .iter()
        .any(|p| p.model.eq_ignore_ascii_case(&card.model))
    {
        format!(
            "{} has no {} figure in the datasheet table (it has no dense {} matrix rate)",
            card.canonical,
            precision.upper(),
            precision.upper()
        )
    } else {
        format!(
            "{} is not in the datasheet table: its peak is not known",
            card.raw
        )
    })
}

/// The most FLOP a job may be: 10⁹ GPU-hours at 10 PFLOP/s.
pub const MAX_FLOP: f64 = 1e9 * 3600.0 * 1e16;

impl Work {
    /// The work as GPU-hours on `card` at its datasheet rate, or why it
    /// cannot be paced there (a card the table does not know).
    pub fn gpu_hours_on(
        &self,
        card: Option<&Accelerator>,
        precision: Precision,
    ) -> Result<f64, String> {
        let peak = || -> Result<f64, String> {
            let card = card.ok_or_else(|| {
                "the platform's card is not known (an offering names it: offering add --accelerator …)".to_string()
            })?;
            peak_of(card, precision).map(|p| p.value)
        };
        match self {
            Work::OwnCard { gpu_hours } => Ok(*gpu_hours),
            Work::OnCard {
                gpu_hours, tflops, ..
            } => Ok(gpu_hours * tflops / peak()?),
            Work::Compute { flop, .. } => Ok(flop / (peak()? * 1e12 * 3600.0)),
        }
    }

    /// The work in FLOP, where it says (not on each platform's own card).
    pub fn flop(&self) -> Option<f64> {
        match self {
            Work::OwnCard { .. } => None,
            Work::OnCard {
                gpu_hours, tflops, ..
            } => Some(gpu_hours * 3600.0 * tflops * 1e12),
            Work::Compute { flop, .. } => Some(*flop),
        }
    }

    /// How the work was read, in words: "2000 GPU-hours on NVIDIA A100
    /// 80GB SXM (312 TFLOP/s BF16 dense, …) = 2.25 × 10²¹ FLOP at BF16".
    pub fn reading(&self, precision: Precision) -> String {
        self.reading_in(precision, false)
    }

    /// The same, in Chinese where `zh`.
    pub fn reading_in(&self, precision: Precision, zh: bool) -> String {
        let at = precision.upper();
        match (self, zh) {
            (Work::OwnCard { gpu_hours }, false) => format!(
                "{} GPU-hours on each platform's own card at its datasheet rate",
                plain(*gpu_hours)
            ),
            (Work::OwnCard { gpu_hours }, true) => format!(
                "各平台自身 GPU 按数据手册速率的 {} GPU 小时",
                plain(*gpu_hours)
            ),
            (
                Work::OnCard {
                    gpu_hours,
                    card,
                    tflops,
                    cited,
                },
                false,
            ) => format!(
                "{} GPU-hours on {card} ({tflops} TFLOP/s {at} dense, {cited}) = {} FLOP at {at}",
                plain(*gpu_hours),
                powers(self.flop().unwrap_or(0.0))
            ),
            (
                Work::OnCard {
                    gpu_hours,
                    card,
                    tflops,
                    cited,
                },
                true,
            ) => format!(
                "{card} 上的 {} GPU 小时（{at} 稠密 {tflops} TFLOP/s，{cited}）= {at} 下 {} FLOP",
                plain(*gpu_hours),
                powers(self.flop().unwrap_or(0.0))
            ),
            (
                Work::Compute {
                    flop,
                    params: Some(n),
                    tokens: Some(d),
                },
                false,
            ) => format!(
                "6 × {} parameters × {} tokens = {} FLOP at {at}",
                powers(*n),
                powers(*d),
                powers(*flop)
            ),
            (
                Work::Compute {
                    flop,
                    params: Some(n),
                    tokens: Some(d),
                },
                true,
            ) => format!(
                "6 × {} 参数 × {} 词元 = {at} 下 {} FLOP",
                powers(*n),
                powers(*d),
                powers(*flop)
            ),
            (Work::Compute { flop, .. }, false) => format!("{} FLOP at {at}", powers(*flop)),
            (Work::Compute { flop, .. }, true) => format!("{at} 下 {} FLOP", powers(*flop)),
        }
    }
}

/// "2000", "1.5": a count as written, without trailing zeros.
fn plain(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{}", (v * 1000.0).round() / 1000.0)
    }
}

/// "2.25 × 10²¹": three significant digits and a power of ten, for numbers
/// too large to read in full (FLOP, tokens).
pub fn powers(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let exponent = v.abs().log10().floor() as i32;
    if (-3..6).contains(&exponent) {
        return plain(v);
    }
    let mantissa = v / 10f64.powi(exponent);
    let mantissa = format!("{:.2}", mantissa);
    let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut sup = String::new();
    if exponent < 0 {
        sup.push('⁻');
    }
    for c in exponent.unsigned_abs().to_string().chars() {
        sup.push(DIGITS[c.to_digit(10).unwrap_or(0) as usize]);
    }
    if mantissa == "1" {
        format!("10{sup}")
    } else {
        format!("{mantissa} × 10{sup}")
    }
}

/// "7B", "1.5T", "70000000000", "3.2e21": a large count as users write it.
pub fn large_count(text: &str) -> Option<f64> {
    let t = text.trim();
    let (number, factor) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 1e3),
        'M' => (&t[..t.len() - 1], 1e6),
        'B' | 'G' => (&t[..t.len() - 1], 1e9),
        'T' => (&t[..t.len() - 1], 1e12),
        'P' => (&t[..t.len() - 1], 1e15),
        _ => (t, 1.0),
    };
    number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|n| n * factor)
        .filter(|n| n.is_finite() && *n > 0.0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::accelerator::normalise;

    #[test]
    fn work_on_one_card_paces_another_by_their_datasheets() {
        let a100 = normalise("A100-80GB");
        let h100 = normalise("H100 SXM");
        let peak = peak_of(&a100, Precision::Bf16).unwrap();
        let work = Work::OnCard {
            gpu_hours: 1000.0,
            card: a100.canonical.clone(),
            tflops: peak.value,
            cited: peak.source.clone(),
        };
        assert_eq!(
            work.gpu_hours_on(Some(&a100), Precision::Bf16).unwrap(),
            1000.0
        );
        let on_h100 = work.gpu_hours_on(Some(&h100), Precision::Bf16).unwrap();
        assert!((on_h100 - 1000.0 * 312.0 / 989.5).abs() < 1e-9, "{on_h100}");
        // FLOP: 1000 h × 3600 s × 312 TFLOP/s.
        assert_eq!(powers(work.flop().unwrap()), "1.12 × 10²¹");
        assert!(
            work.reading(Precision::Bf16)
                .contains("= 1.12 × 10²¹ FLOP at BF16")
        );
        // A card the table knows two ways, or not at all, is named.
        let e = peak_of(&normalise("H100"), Precision::Bf16).unwrap_err();
        assert!(
            e.contains("names cards of different BF16 peaks") && e.contains("H100 SXM 989.5"),
            "{e}"
        );
        let e = peak_of(&normalise("Ascend910B3"), Precision::Bf16).unwrap_err();
        assert!(e.contains("is not in the datasheet table"), "{e}");
        let e = peak_of(&a100, Precision::Fp8).unwrap_err();
        assert!(e.contains("has no FP8 figure"), "{e}");
        let compute = Work::Compute {
            flop: 6.0 * 7e9 * 1e12,
            params: Some(7e9),
            tokens: Some(1e12),
        };
        assert!(
            (compute.gpu_hours_on(Some(&h100), Precision::Bf16).unwrap()
                - 4.2e22 / (989.5e12 * 3600.0))
                .abs()
                < 1e-6
        );
        assert_eq!(
            compute.reading(Precision::Bf16),
            "6 × 7 × 10⁹ parameters × 10¹² tokens = 4.2 × 10²² FLOP at BF16"
        );
        assert!(
            compute
                .gpu_hours_on(None, Precision::Bf16)
                .unwrap_err()
                .contains("card is not known")
        );
    }

    #[test]
    fn large_numbers_are_read_and_said_as_people_write_them() {
        assert_eq!(large_count("7B"), Some(7e9));
        assert_eq!(large_count("1.5T"), Some(1.5e12));
        assert_eq!(large_count("3.2e21"), Some(3.2e21));
        assert_eq!(large_count("-1"), None);
        assert_eq!(powers(2000.0), "2000");
        assert_eq!(powers(3.2e21), "3.2 × 10²¹");
        assert_eq!(powers(1e12), "10¹²");
    }
}
