//! The billing probe (the four-breakpoint review, §6.2 item 2, §4.1 step 3): a job of an exact
//! length — 90 s unless told otherwise — with its start and end recorded to
//! the millisecond, optionally with a long wait inside (300 s) to learn
//! whether waiting is billed. Written as a billing-events table
//! (`timestamp,event,instance`) that imports like any; once the platform's
//! bill for the instance is imported too, the billing unit is measured from
//! the two (`billing.granularity_s`), not taken from the typed rule.

use std::io::Write;
use std::time::Duration;

/// Time as the probe sees it: the real clock, or a manual one in tests.
pub trait Clock {
    fn now_ms(&self) -> i64;
    /// Pass `d`, working (`busy`: the CPU kept busy, as a job would) or
    /// waiting.
    fn pass(&self, d: Duration, busy: bool);
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        jiff::Timestamp::now().as_millisecond()
    }

    fn pass(&self, d: Duration, busy: bool) {
        let end = std::time::Instant::now() + d;
        if busy {
            // A job that works the whole time: the platform cannot tell it
            // from a real one by its load.
            let mut x = 0u64;
            while std::time::Instant::now() < end {
                for i in 0..10_000u64 {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
                }
                std::hint::black_box(x);
            }
        } else {
            std::thread::sleep(d);
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub instance: String,
    /// The working time in all.
    pub compute: Duration,
    /// A wait in the middle of the job, if any.
    pub sleep: Option<Duration>,
}

/// What the job did: its wall time, from its first start to its last end.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    pub started_ms: i64,
    pub ended_ms: i64,
}

fn row(out: &mut dyn Write, t_ms: i64, event: &str, instance: &str) -> std::io::Result<()> {
    let at = jiff::Timestamp::from_millisecond(t_ms).map_err(std::io::Error::other)?;
    writeln!(
        out,
        "{},{event},{instance}",
        at.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
    )?;
    out.flush()
}

/// Run the job, writing each edge as it happens (so that a killed probe
/// leaves the edges it reached).
pub fn run(plan: &Plan, clock: &dyn Clock, out: &mut dyn Write) -> std::io::Result<Done> {
    let instance = plan.instance.as_str();
    writeln!(out, "timestamp,event,instance")?;
    let started = clock.now_ms();
    row(out, started, "compute_start", instance)?;
    match plan.sleep {
        None => clock.pass(plan.compute, true),
        Some(wait) => {
            let half = plan.compute / 2;
            clock.pass(half, true);
            let t = clock.now_ms();
            row(out, t, "compute_end", instance)?;
            row(out, t, "idle_start", instance)?;
            clock.pass(wait, false);
            let t = clock.now_ms();
            row(out, t, "idle_end", instance)?;
            row(out, t, "compute_start", instance)?;
            clock.pass(plan.compute - half, true);
        }
    }
    let ended = clock.now_ms();
    row(out, ended, "compute_end", instance)?;
    Ok(Done {
        started_ms: started,
        ended_ms: ended,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::cell::Cell;

    use super::*;

    struct Manual(Cell<i64>);

    impl Clock for Manual {
        fn now_ms(&self) -> i64 {
            self.0.get()
        }
        fn pass(&self, d: Duration, _busy: bool) {
            self.0.set(self.0.get() + d.as_millis() as i64);
        }
    }

    #[test]
    fn the_job_writes_its_edges_to_the_millisecond() {
        let clock = Manual(Cell::new(1_717_200_000_000));
        let mut out = Vec::new();
        let plan = Plan {
            instance: "i-1".into(),
            compute: Duration::from_secs(90),
            sleep: Some(Duration::from_secs(300)),
        };
        let done = run(&plan, &clock, &mut out).unwrap();
        assert_eq!(done.ended_ms - done.started_ms, 390_000);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "timestamp,event,instance\n\
             2024-06-01T00:00:00.000Z,compute_start,i-1\n\
             2024-06-01T00:00:45.000Z,compute_end,i-1\n\
             2024-06-01T00:00:45.000Z,idle_start,i-1\n\
             2024-06-01T00:05:45.000Z,idle_end,i-1\n\
             2024-06-01T00:05:45.000Z,compute_start,i-1\n\
             2024-06-01T00:06:30.000Z,compute_end,i-1\n"
        );
    }
}
