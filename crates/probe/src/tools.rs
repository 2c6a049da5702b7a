//! Accelerators NVML does not see — Huawei Ascend, AMD Instinct, Cambricon
//! MLU — read through their vendors' own tools, behind the same seam as
//! NVML. Each tick runs the tool once (`npu-smi info`, `amd-smi metric
//! --json`, `rocm-smi -a --json`, `cnmon`) and reads its output with the
//! importer's parser for that format, so a reading taken live and a log
//! imported later mean the same thing.
//!
//! The tools print no Xid-like events and no per-process use, so the probe
//! says so once in a note; an accelerator that drops out of the tool's
//! output is a lost GPU, a tool that fails is a missing reading.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use breakpoint_formats::Format;
use breakpoint_formats::snapshot::{ToolSnapshot, read_snapshot};
use breakpoint_model::domain::GpuInfo;
use breakpoint_model::samples::Field;

use crate::source::{GpuEvent, GpuSource, ReadError, Reading, SourceError};

/// A vendor's command-line tool and how to ask it for one snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    NpuSmi,
    AmdSmi,
    RocmSmi,
    Cnmon,
}

impl Tool {
    /// In the order they are tried: amd-smi replaces rocm-smi where both
    /// are installed.
    pub const ALL: [Tool; 4] = [Tool::NpuSmi, Tool::AmdSmi, Tool::RocmSmi, Tool::Cnmon];

    pub fn program(self) -> &'static str {
        match self {
            Tool::NpuSmi => "npu-smi",
            Tool::AmdSmi => "amd-smi",
            Tool::RocmSmi => "rocm-smi",
            Tool::Cnmon => "cnmon",
        }
    }

    pub fn args(self) -> &'static [&'static str] {
        match self {
            Tool::NpuSmi => &["info"],
            Tool::AmdSmi => &["metric", "--json"],
            Tool::RocmSmi => &["-a", "--json"],
            Tool::Cnmon => &[],
        }
    }

    pub fn format(self) -> Format {
        match self {
            Tool::NpuSmi => Format::NpuSmi,
            Tool::AmdSmi => Format::AmdSmi,
            Tool::RocmSmi => Format::RocmSmi,
            Tool::Cnmon => Format::Cnmon,
        }
    }
}

/// Runs a program and returns what it printed: the seam tests replace
/// with recorded outputs.
pub trait ToolRunner {
    fn run(&mut self, program: &str, args: &[&str]) -> Result<String, String>;
}

/// Runs the real tools, each call bounded in time: a hung tool must not
/// hang the sampling loop.
pub struct SystemRunner {
    pub timeout: Duration,
}

impl Default for SystemRunner {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(10),
        }
    }
}

impl ToolRunner for SystemRunner {
    fn run(&mut self, program: &str, args: &[&str]) -> Result<String, String> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {program}: {e}"))?;
        let mut stdout = child.stdout.take().ok_or("no output")?;
        // Read on a thread so a full pipe cannot stall the wait below.
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            stdout.read_to_string(&mut text).map(|_| text)
        });
        let started = Instant::now();
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if started.elapsed() >= self.timeout => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(format!(
                        "{program} did not answer within {} s",
                        self.timeout.as_secs()
                    ));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => return Err(format!("{program}: {e}")),
            }
        };
        let text = reader
            .join()
            .map_err(|_| format!("{program}: reading its output failed"))?
            .map_err(|e| format!("{program}: {e}"))?;
        if !status.success() {
            return Err(format!("{program} exited with {status}"));
        }
        Ok(text)
    }
}

/// A GPU source over one vendor tool.
pub struct ToolSource {
    tool: Tool,
    runner: Box<dyn ToolRunner + Send>,
    inventory: Vec<GpuInfo>,
    /// This tick's readings by GPU index (taken at the first read of the
    /// tick), or why the tool gave none.
    current: Option<Result<Vec<Option<Reading>>, String>>,
    noted: bool,
}

impl ToolSource {
    /// The first tool that runs here and lists at least one accelerator.
    pub fn detect(mut runner: Box<dyn ToolRunner + Send>) -> Option<ToolSource> {
        for tool in Tool::ALL {
            if let Ok(snapshot) = snapshot(tool, runner.as_mut())
                && !snapshot.inventory.is_empty()
            {
                return Some(ToolSource {
                    tool,
                    runner,
                    current: Some(Ok(readings(&snapshot, &snapshot.inventory))),
                    inventory: snapshot.inventory,
                    noted: false,
                });
            }
        }
        None
    }

    pub fn tool(&self) -> Tool {
        self.tool
    }
}

fn snapshot(tool: Tool, runner: &mut dyn ToolRunner) -> Result<ToolSnapshot, String> {
    let text = runner.run(tool.program(), tool.args())?;
    read_snapshot(tool.format(), &text, jiff::Timestamp::now()).map_err(|e| e.to_string())
}

/// Each known GPU's reading, by its index; `None` for one the output no
/// longer lists. GPUs are matched by PCI address (then UUID), not by
/// position: one dropping out must not shift the others.
fn readings(snapshot: &ToolSnapshot, known: &[GpuInfo]) -> Vec<Option<Reading>> {
    let mut out = vec![None; known.len()];
    for s in &snapshot.samples {
        let seen = snapshot.inventory.iter().find(|g| g.index == s.gpu);
        let same = |k: &GpuInfo| match seen {
            Some(g) if g.pci_bus_id.is_some() => k.pci_bus_id == g.pci_bus_id,
            Some(g) if g.uuid.is_some() => k.uuid == g.uuid,
            _ => k.index == s.gpu,
        };
        let Some(slot) = known.iter().position(same).and_then(|i| out.get_mut(i)) else {
            continue;
        };
        *slot = Some(Reading {
            values: Field::ALL
                .iter()
                .filter_map(|f| s.get(*f).map(|v| (*f, v)))
                .collect(),
        });
    }
    out
}

impl GpuSource for ToolSource {
    fn inventory(&mut self) -> Result<Vec<GpuInfo>, SourceError> {
        Ok(self.inventory.clone())
    }

    fn read(&mut self, gpu: u32) -> Result<Reading, ReadError> {
        if self.current.is_none() {
            let known = &self.inventory;
            self.current =
                Some(snapshot(self.tool, self.runner.as_mut()).map(|s| readings(&s, known)));
        }
        match &self.current {
            Some(Ok(readings)) => match readings.get(gpu as usize) {
                Some(Some(r)) => Ok(r.clone()),
                _ => Err(ReadError::Lost(format!(
                    "{} no longer lists this accelerator",
                    self.tool.program()
                ))),
            },
            Some(Err(reason)) => Err(ReadError::Other(reason.clone())),
            None => Err(ReadError::Other("no reading".into())),
        }
    }

    fn events(&mut self, _timeout_ms: u32) -> Vec<GpuEvent> {
        // The end of a tick: the next read runs the tool again.
        self.current = None;
        Vec::new()
    }

    fn compute_pids(&mut self, _gpu: u32) -> Option<Vec<u32>> {
        None
    }

    fn notes(&mut self) -> Vec<(Option<u32>, String)> {
        if std::mem::replace(&mut self.noted, true) {
            return Vec::new();
        }
        vec![(
            None,
            format!(
                "readings through {} (no NVIDIA GPU here): no Xid events and no per-process use from this tool",
                self.tool.program()
            ),
        )]
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::HashMap;

    use super::*;

    /// Recorded outputs, one per call, by program; a program without one
    /// is not installed.
    struct Recorded {
        outputs: HashMap<&'static str, Vec<Result<String, String>>>,
    }

    impl ToolRunner for Recorded {
        fn run(&mut self, program: &str, _args: &[&str]) -> Result<String, String> {
            match self.outputs.get_mut(program) {
                Some(queue) if queue.len() > 1 => queue.remove(0),
                Some(queue) => queue[0].clone(),
                None => Err(format!("cannot run {program}: not found")),
            }
        }
    }

    fn fixture(path: &str) -> String {
        std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/logs")
                .join(path),
        )
        .unwrap()
    }

    #[test]
    fn the_first_tool_that_answers_is_used() {
        let runner = Recorded {
            outputs: HashMap::from([("amd-smi", vec![Ok(fixture("amd/amd-smi-metric.json"))])]),
        };
        let mut source = ToolSource::detect(Box::new(runner)).unwrap();
        assert_eq!(source.tool(), Tool::AmdSmi);
        assert_eq!(source.inventory().unwrap().len(), 2);
        let r = source.read(0).unwrap();
        assert_eq!(r.get(Field::PowerMw), Some(712_000));
        assert_eq!(source.notes().len(), 1);
        assert!(source.notes().is_empty());

        let none = Recorded {
            outputs: HashMap::new(),
        };
        assert!(ToolSource::detect(Box::new(none)).is_none());
    }

    #[test]
    fn each_tick_runs_the_tool_once_and_a_vanished_npu_is_lost() {
        let full = fixture("npu-smi/info-310p-duo.txt");
        // The first chip's rows gone: the card lost one of its chips, and
        // the other must still read as chip 1.
        let lines: Vec<&str> = full.lines().collect();
        let partial = [&lines[..6], &lines[9..]].concat().join("\n") + "\n";
        let runner = Recorded {
            outputs: HashMap::from([(
                "npu-smi",
                vec![
                    Ok(full.clone()),
                    Ok(full),
                    Ok(partial),
                    Err("npu-smi exited with 1".into()),
                ],
            )]),
        };
        let mut source = ToolSource::detect(Box::new(runner)).unwrap();
        assert_eq!(source.tool(), Tool::NpuSmi);
        // Tick 1: the detection's own output.
        assert_eq!(source.read(1).unwrap().get(Field::UtilGpuPct), Some(12));
        source.events(0);
        // Tick 2: a fresh run, both chips.
        assert!(source.read(0).is_ok() && source.read(1).is_ok());
        source.events(0);
        // Tick 3: chip 0 missing from the output; chip 1 still itself.
        assert!(matches!(source.read(0), Err(ReadError::Lost(_))));
        assert_eq!(source.read(1).unwrap().get(Field::UtilGpuPct), Some(12));
        source.events(0);
        // Tick 4: the tool failed: a missing reading, not a lost GPU.
        assert!(matches!(source.read(0), Err(ReadError::Other(m)) if m.contains("exited with 1")));
    }

    #[test]
    fn a_hung_tool_is_stopped() {
        let mut runner = SystemRunner {
            timeout: Duration::from_millis(200),
        };
        let e = runner.run("sleep", &["5"]).unwrap_err();
        assert!(e.contains("did not answer"), "{e}");
        assert_eq!(runner.run("echo", &["hi"]).unwrap(), "hi\n");
        assert!(runner.run("definitely-not-a-tool-here", &[]).is_err());
    }
}
