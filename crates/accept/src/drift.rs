//! Numeric drift and operator coverage (the four-breakpoint review, §3.3, §4.3, §6.2 item 4):
//! the reference operator suite (`operators.py`, written out and run by the
//! platform's Python) saves each operator's output; two such outputs — a
//! reference platform's and this one's — are compared operator by
//! operator: relative L2 and largest absolute error, and which operators
//! ran and stayed within a tolerance. The comparison is a drift log
//! (`breakpoint-drift`) that imports as a switch run.

use std::path::Path;
use std::time::Duration;

use base64::Engine;
use breakpoint_core::archive::sha256_hex;
use breakpoint_destination::Destination;
use breakpoint_formats::parsers::drift_log::{
    DRIFT_FORMAT, DRIFT_VERSION, DriftLog, NotCompared, OperatorDrift, SuiteSide,
};
use serde::Deserialize;

/// The suite, as Breakpoint writes it out.
pub const SCRIPT: &str = include_str!("operators.py");
pub const OUTPUTS_FORMAT: &str = "breakpoint-operators";
pub const OUTPUTS_VERSION: u32 = 1;

/// The seed's flag level: above 1e-4 downstream accuracy suffered.
pub const DEFAULT_TOLERANCE: f64 = 1e-4;

/// One run of the suite, as `operators.py` writes it.
#[derive(Debug, Clone, Deserialize)]
pub struct Outputs {
    pub format: String,
    pub version: u32,
    pub suite: String,
    pub seed: u64,
    #[serde(default)]
    pub host: Option<String>,
    pub framework: String,
    pub device: String,
    #[serde(default)]
    pub settings: serde_json::Map<String, serde_json::Value>,
    pub operators: Vec<OperatorOutput>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OperatorOutput {
    pub name: String,
    #[serde(default)]
    pub shape: Option<Vec<usize>>,
    #[serde(default)]
    pub dtype: Option<String>,
    /// Little-endian float32 values, base64.
    #[serde(default)]
    pub data: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
}

/// An outputs document read from `path`, and its SHA-256.
pub fn read_outputs(path: &Path) -> Result<(Outputs, String), String> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: cannot read: {e}"))?;
    outputs_of(&bytes, &shown)
}

/// An outputs document's bytes read (`shown` names it in errors), and its
/// SHA-256.
fn outputs_of(bytes: &[u8], shown: &str) -> Result<(Outputs, String), String> {
    let outputs: Outputs = serde_json::from_slice(bytes).map_err(|e| {
        format!(
            "{shown}:{}: not the operator suite's outputs: {e}",
            e.line()
        )
    })?;
    if outputs.format != OUTPUTS_FORMAT || outputs.version != OUTPUTS_VERSION {
        return Err(format!(
            "{shown}: {} version {} is not an outputs document this version reads ({OUTPUTS_FORMAT} {OUTPUTS_VERSION})",
            outputs.format, outputs.version
        ));
    }
    Ok((outputs, sha256_hex(bytes)))
}

impl OperatorOutput {
    /// The values, or why there are none to compare.
    fn values(&self) -> Result<(Vec<usize>, Vec<f32>), String> {
        if let Some(error) = &self.error {
            return Err(format!("did not run: {error}"));
        }
        let (Some(shape), Some(data)) = (&self.shape, &self.data) else {
            return Err("no output recorded".into());
        };
        if self.dtype.as_deref().is_some_and(|d| d != "float32") {
            return Err(format!(
                "dtype {} (the suite writes float32)",
                self.dtype.as_deref().unwrap_or_default()
            ));
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| format!("data is not base64: {e}"))?;
        let count: usize = shape.iter().product();
        if bytes.len() != count * 4 {
            return Err(format!(
                "{} bytes of data for shape {shape:?} ({} expected)",
                bytes.len(),
                count * 4
            ));
        }
        let values = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok((shape.clone(), values))
    }
}

/// ‖s − r‖ / ‖r‖ and max |s − r|, in f64.
fn errors(subject: &[f32], reference: &[f32]) -> (f64, f64, f64) {
    let (mut diff2, mut ref2, mut max_abs) = (0.0f64, 0.0f64, 0.0f64);
    for (s, r) in subject.iter().zip(reference) {
        let (s, r) = (f64::from(*s), f64::from(*r));
        let d = s - r;
        diff2 += d * d;
        ref2 += r * r;
        max_abs = max_abs.max(d.abs());
    }
    (diff2.sqrt(), ref2.sqrt(), max_abs)
}

fn side(o: &Outputs, sha256: &str) -> SuiteSide {
    SuiteSide {
        host: o.host.clone(),
        framework: o.framework.clone(),
        device: o.device.clone(),
        sha256: sha256.to_string(),
    }
}

/// Compare `subject` with `reference`, operator by operator in the
/// reference's order. An operator the subject could not run, or ran to a
/// different shape or to non-finite values, fails; one the reference could
/// not run is listed as not compared.
pub fn compare(
    reference: (&Outputs, &str),
    subject: (&Outputs, &str),
    tolerance: f64,
    now: jiff::Timestamp,
) -> Result<DriftLog, String> {
    let ((r, r_sha), (s, s_sha)) = (reference, subject);
    if !(tolerance.is_finite() && tolerance > 0.0) {
        return Err(format!("tolerance {tolerance} must be a positive number"));
    }
    if r.suite != s.suite {
        return Err(format!(
            "the outputs come from different suites ({} and {}): run the same Breakpoint version on both",
            r.suite, s.suite
        ));
    }
    if r.seed != s.seed {
        return Err(format!(
            "the outputs were computed from different inputs (seed {} and {}): run the suite here with --seed {}",
            r.seed, s.seed, r.seed
        ));
    }
    let mut operators = Vec::new();
    let mut not_compared = Vec::new();
    for ref_op in &r.operators {
        let (ref_shape, ref_values) = match ref_op.values() {
            Ok(v) => v,
            Err(reason) => {
                not_compared.push(NotCompared {
                    operator: ref_op.name.clone(),
                    reason: format!("the reference {reason}"),
                });
                continue;
            }
        };
        if ref_values.iter().any(|v| !v.is_finite()) {
            not_compared.push(NotCompared {
                operator: ref_op.name.clone(),
                reason: "the reference's output is not finite".into(),
            });
            continue;
        }
        let failed = |note: String| OperatorDrift {
            operator: ref_op.name.clone(),
            rel_l2: None,
            max_abs: None,
            passed: false,
            note: Some(note),
        };
        let Some(sub_op) = s.operators.iter().find(|o| o.name == ref_op.name) else {
            operators.push(failed("missing from the outputs".into()));
            continue;
        };
        let (shape, values) = match sub_op.values() {
            Ok(v) => v,
            Err(reason) => {
                operators.push(failed(reason));
                continue;
            }
        };
        if shape != ref_shape {
            operators.push(failed(format!(
                "shape {shape:?}, the reference's {ref_shape:?}"
            )));
            continue;
        }
        let non_finite = values.iter().filter(|v| !v.is_finite()).count();
        if non_finite > 0 {
            operators.push(failed(format!(
                "{non_finite} of {} values are not finite",
                values.len()
            )));
            continue;
        }
        let (diff, norm, max_abs) = errors(&values, &ref_values);
        if norm == 0.0 {
            operators.push(OperatorDrift {
                operator: ref_op.name.clone(),
                rel_l2: (diff == 0.0).then_some(0.0),
                max_abs: Some(max_abs),
                passed: diff == 0.0,
                note: (diff != 0.0)
                    .then(|| "the reference's output is all zeros; this one is not".into()),
            });
            continue;
        }
        let rel_l2 = diff / norm;
        let passed = rel_l2 <= tolerance;
        operators.push(OperatorDrift {
            operator: ref_op.name.clone(),
            rel_l2: Some(rel_l2),
            max_abs: Some(max_abs),
            passed,
            note: (!passed).then(|| format!("above the tolerance {tolerance:e}")),
        });
    }
    if operators.is_empty() {
        return Err(format!(
            "no operator could be compared: the reference ran none ({})",
            not_compared
                .iter()
                .map(|n| n.operator.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(DriftLog {
        format: DRIFT_FORMAT.into(),
        version: DRIFT_VERSION,
        compared_at: now,
        tolerance,
        suite: r.suite.clone(),
        seed: r.seed,
        reference: side(r, r_sha),
        subject: side(s, s_sha),
        operators,
        not_compared,
    })
}

/// How to run the suite here.
#[derive(Debug, Clone)]
pub struct SuiteRun {
    /// The interpreter (with PyTorch, or at least NumPy).
    pub python: String,
    /// auto, cuda, npu, cpu or numpy.
    pub device: String,
    pub seed: u64,
    pub timeout: Duration,
}

pub const DEVICES: &[&str] = &["auto", "cuda", "npu", "cpu", "numpy"];

/// Write the suite out, run it with the platform's Python, read what it
/// saved and write it to `output` once it reads whole. The last lines it
/// printed are kept for a failure.
pub fn run_suite(run: &SuiteRun, output: &Destination) -> Result<(Outputs, String), String> {
    if !DEVICES.contains(&run.device.as_str()) {
        return Err(format!(
            "device {}: one of {}",
            run.device,
            DEVICES.join(", ")
        ));
    }
    let bytes = crate::script::run(&crate::script::Script {
        name: "operators.py",
        text: SCRIPT,
        title: "the operator suite",
        python: &run.python,
        args: vec![
            "--device".into(),
            run.device.clone().into(),
            "--seed".into(),
            run.seed.to_string().into(),
        ],
        timeout: run.timeout,
    })?;
    let read = outputs_of(&bytes, &output.path().display().to_string())?;
    output.write(&bytes).map_err(|e| e.to_string())?;
    Ok(read)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(ops: &[(&str, Option<&[f32]>)]) -> Outputs {
        Outputs {
            format: OUTPUTS_FORMAT.into(),
            version: 1,
            suite: "ops-1".into(),
            seed: 1,
            host: None,
            framework: "numpy".into(),
            device: "cpu".into(),
            settings: Default::default(),
            operators: ops
                .iter()
                .map(|(name, values)| OperatorOutput {
                    name: name.to_string(),
                    shape: values.map(|v| vec![v.len()]),
                    dtype: Some("float32".into()),
                    data: values.map(|v| {
                        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
                        base64::engine::general_purpose::STANDARD.encode(bytes)
                    }),
                    error: values
                        .is_none()
                        .then(|| "RuntimeError: not supported".into()),
                })
                .collect(),
        }
    }

    #[test]
    fn errors_per_operator_and_what_cannot_be_compared() {
        let reference = outputs(&[
            ("a", Some(&[3.0, 4.0])),
            ("b", Some(&[1.0, 1.0])),
            ("c", None),
            ("d", Some(&[0.0, 0.0])),
            ("e", Some(&[1.0])),
        ]);
        let subject = outputs(&[
            ("a", Some(&[3.0, 4.0])),
            ("b", Some(&[1.0, 1.0 + 2f32.powi(-10)])),
            ("c", Some(&[1.0])),
            ("d", Some(&[0.0, 0.0])),
            ("e", None),
        ]);
        let log = compare(
            (&reference, "r"),
            (&subject, "s"),
            1e-4,
            jiff::Timestamp::UNIX_EPOCH,
        )
        .unwrap();
        let by = |n: &str| log.operators.iter().find(|o| o.operator == n).unwrap();
        assert_eq!(by("a").rel_l2, Some(0.0));
        assert!(by("a").passed);
        // ‖(0, 2^-10)‖ / ‖(1, 1)‖ = 2^-10 / √2.
        let expected = 2f64.powi(-10) / 2f64.sqrt();
        assert!((by("b").rel_l2.unwrap() - expected).abs() < 1e-12);
        assert_eq!(by("b").max_abs, Some(2f64.powi(-10)));
        assert!(!by("b").passed);
        assert_eq!(
            by("d").rel_l2,
            Some(0.0),
            "all zeros on both sides is equal"
        );
        assert!(!by("e").passed && by("e").note.as_deref().unwrap().contains("not supported"));
        assert_eq!(log.not_compared.len(), 1);
        assert_eq!(log.not_compared[0].operator, "c");
        assert_eq!(log.coverage(), (2, 4));
    }

    #[test]
    fn outputs_of_other_inputs_are_not_compared() {
        let reference = outputs(&[("a", Some(&[1.0]))]);
        let mut subject = reference.clone();
        subject.seed = 2;
        let e = compare(
            (&reference, "r"),
            (&subject, "s"),
            1e-4,
            jiff::Timestamp::UNIX_EPOCH,
        )
        .unwrap_err();
        assert!(e.contains("seed 1 and 2"), "{e}");
        let mut broken = reference.clone();
        broken.operators[0].data = Some("AAAA".into());
        let log = compare(
            (&reference, "r"),
            (&broken, "s"),
            1e-4,
            jiff::Timestamp::UNIX_EPOCH,
        )
        .unwrap();
        assert!(
            log.operators[0]
                .note
                .as_deref()
                .unwrap()
                .contains("3 bytes")
        );
    }
}
