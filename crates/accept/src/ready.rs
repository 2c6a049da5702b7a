//! Ready (the four-breakpoint review's stages, §3.1, measured from inside the instance): run
//! at boot, it times the kernel's boot (`btime` in /proc/stat) → the
//! accelerator's driver answering → a first computation succeeding. With the
//! time the instance was requested (`--submitted-at`, from a campaign or the
//! user), it is a whole startup attempt; without it, submission is taken as
//! the boot. Written as a startup-attempts table that imports like any.

use std::path::PathBuf;
use std::time::Duration;

/// The kernel's boot time, UTC milliseconds, from `/proc/stat`'s `btime`.
pub fn boot_time_ms(proc_stat: &str) -> Option<i64> {
    proc_stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))
        .and_then(|v| v.trim().parse::<i64>().ok())
        .map(|s| s * 1000)
}

/// This machine's boot time, read from `/proc/stat`: where `ready`
/// starts counting, whether it runs alone or in a plan.
pub fn boot_time_now_ms() -> Result<i64, String> {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| boot_time_ms(&s))
        .ok_or_else(|| "cannot read the boot time (/proc/stat btime)".to_string())
}

/// What the check polls: the driver, and the first computation.
pub trait Readiness {
    /// Whether the accelerator's driver answers now.
    fn driver_answers(&mut self) -> bool;
    /// Run the first computation once; whether it succeeded.
    fn compute(&mut self) -> Result<(), String>;
    fn now_ms(&self) -> i64;
    fn sleep(&self, d: Duration);
}

#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub boot_ms: i64,
    pub submitted_ms: Option<i64>,
    pub timeout: Duration,
    pub poll: Duration,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stages {
    pub submitted_ms: i64,
    pub booted_ms: i64,
    pub driver_ms: Option<i64>,
    pub first_compute_ms: Option<i64>,
    /// Why the check stopped short, if it did.
    pub failure: Option<String>,
}

/// Poll the driver, then try the first computation, each until it works or
/// the timeout passes.
pub fn measure(r: &mut dyn Readiness, o: &Options) -> Stages {
    let started = r.now_ms();
    let timeout_ms = o.timeout.as_millis() as i64;
    let out_of_time = |r: &dyn Readiness| r.now_ms() - started >= timeout_ms;
    let mut stages = Stages {
        submitted_ms: o.submitted_ms.unwrap_or(o.boot_ms),
        booted_ms: o.boot_ms,
        driver_ms: None,
        first_compute_ms: None,
        failure: None,
    };
    while !r.driver_answers() {
        if out_of_time(r) {
            stages.failure = Some("the accelerator's driver never answered".into());
            return stages;
        }
        r.sleep(o.poll);
    }
    stages.driver_ms = Some(r.now_ms());
    loop {
        let last = match r.compute() {
            Ok(()) => {
                stages.first_compute_ms = Some(r.now_ms());
                return stages;
            }
            Err(e) => e,
        };
        if out_of_time(r) {
            stages.failure = Some(format!("the first computation never succeeded: {last}"));
            return stages;
        }
        r.sleep(o.poll);
    }
}

/// The machine: the probe's GPU source (NVML, or a vendor tool, or a
/// replayed trace) for the driver, `sh -c` for the first computation.
pub struct System {
    pub trace: Option<PathBuf>,
    pub first_compute: String,
    /// How long one try of the first computation may take.
    pub compute_timeout: Duration,
}

impl Readiness for System {
    fn driver_answers(&mut self) -> bool {
        breakpoint_probe::ProbeSource::open(self.trace.as_deref())
            .ok()
            .is_some_and(|mut s| s.as_dyn().inventory().is_ok_and(|g| !g.is_empty()))
    }

    fn compute(&mut self) -> Result<(), String> {
        let mut child = std::process::Command::new("sh")
            .arg("-c")
            .arg(&self.first_compute)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run it: {e}"))?;
        let end = std::time::Instant::now() + self.compute_timeout;
        loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                return if status.success() {
                    Ok(())
                } else {
                    Err(format!("exited with {status}"))
                };
            }
            if std::time::Instant::now() >= end {
                let _ = child.kill();
                let _ = child.wait();
                return Err("it did not finish in time".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn now_ms(&self) -> i64 {
        jiff::Timestamp::now().as_millisecond()
    }

    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}

/// The attempt as a startup-attempts table: submitted → provisioned (the
/// kernel's boot) → image ready (the driver answering) → first compute.
pub fn table(s: &Stages) -> String {
    let at = |ms: Option<i64>| {
        ms.and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
            .map_or(String::new(), |t| {
                t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
            })
    };
    let outcome = match (&s.failure, s.first_compute_ms) {
        (None, Some(_)) => "ok",
        _ => "timeout",
    };
    format!(
        "scenario,image,submitted_at,provisioned_at,image_ready_at,first_compute_at,outcome\nbaseline,warm,{},{},{},{},{outcome}\n",
        at(Some(s.submitted_ms)),
        at(Some(s.booted_ms.max(s.submitted_ms))),
        at(s.driver_ms),
        at(s.first_compute_ms),
    )
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    struct Scripted {
        t: Cell<i64>,
        driver_after: i64,
        compute_after: i64,
    }

    impl Readiness for Scripted {
        fn driver_answers(&mut self) -> bool {
            self.t.get() >= self.driver_after
        }
        fn compute(&mut self) -> Result<(), String> {
            if self.t.get() >= self.compute_after {
                Ok(())
            } else {
                Err("CUDA error: no CUDA-capable device is detected".into())
            }
        }
        fn now_ms(&self) -> i64 {
            self.t.get()
        }
        fn sleep(&self, d: Duration) {
            self.t.set(self.t.get() + d.as_millis() as i64);
        }
    }

    #[test]
    fn boot_driver_and_first_compute_are_timed() {
        assert_eq!(
            boot_time_ms("cpu  1 2 3\nbtime 1717200000\nprocesses 9\n"),
            Some(1_717_200_000_000)
        );
        let boot = 1_717_200_000_000;
        let mut r = Scripted {
            t: Cell::new(boot + 20_000),
            driver_after: boot + 35_000,
            compute_after: boot + 41_000,
        };
        let o = Options {
            boot_ms: boot,
            submitted_ms: Some(boot - 60_000),
            timeout: Duration::from_secs(600),
            poll: Duration::from_secs(1),
        };
        let s = measure(&mut r, &o);
        assert_eq!(
            (s.driver_ms, s.first_compute_ms, s.failure.as_deref()),
            (Some(boot + 35_000), Some(boot + 41_000), None)
        );
        assert_eq!(
            table(&s),
            "scenario,image,submitted_at,provisioned_at,image_ready_at,first_compute_at,outcome\n\
             baseline,warm,2024-05-31T23:59:00.000Z,2024-06-01T00:00:00.000Z,2024-06-01T00:00:35.000Z,2024-06-01T00:00:41.000Z,ok\n"
        );
    }
}
