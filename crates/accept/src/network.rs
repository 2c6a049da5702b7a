//! Network stability: TCP connect time to the endpoints a workload depends
//! on — object storage, the image registry, a dataset mirror — every few
//! seconds, written to a network log (`breakpoint-network`, see
//! docs/formats.md). Names are resolved once at the start, so that what is
//! measured is the path, not the resolver.

use std::io::Write;
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use breakpoint_formats::parsers::network_log::{
    NETWORK_FORMAT, NETWORK_VERSION, NetworkHeader, NetworkRecord,
};

/// Opens a connection: the seam tests replace with planted delays and
/// drops.
pub trait Connector: Send + Sync {
    /// Milliseconds to connect, or why it failed.
    fn connect(&self, target: &Target, timeout: Duration) -> Result<f64, String>;
}

/// An endpoint as the user named it, and the address it resolved to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub name: String,
    pub addr: SocketAddr,
}

/// `host:port` → the first address it resolves to; a clear message when
/// it is not one.
pub fn resolve(name: &str) -> Result<Target, String> {
    let addr = name
        .to_socket_addrs()
        .map_err(|e| format!("{name}: not a host:port that resolves ({e})"))?
        .next()
        .ok_or_else(|| format!("{name}: resolves to no address"))?;
    Ok(Target {
        name: name.to_string(),
        addr,
    })
}

/// The machine's TCP stack.
pub struct TcpConnector;

impl Connector for TcpConnector {
    fn connect(&self, target: &Target, timeout: Duration) -> Result<f64, String> {
        let started = Instant::now();
        match TcpStream::connect_timeout(&target.addr, timeout) {
            Ok(stream) => {
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                drop(stream);
                Ok(ms)
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {
                Err(format!("timed out after {} ms", timeout.as_millis()))
            }
            Err(e) => Err(e.to_string()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Options {
    pub every: Duration,
    pub duration: Duration,
    pub timeout: Duration,
    pub host: Option<String>,
}

/// What a session measured, per target: attempts and failures.
#[derive(Debug, Clone, PartialEq)]
pub struct Tally {
    pub target: String,
    pub attempts: u64,
    pub failed: u64,
}

/// Measure every target each round until the duration ends or `stop` is
/// set, writing the log as it goes (a line per attempt, flushed each
/// round, so that a killed session leaves a log that imports).
pub fn measure(
    targets: &[Target],
    connector: &dyn Connector,
    options: &Options,
    out: &mut dyn Write,
    stop: &AtomicBool,
    mut progress: impl FnMut(&NetworkRecord),
) -> std::io::Result<Vec<Tally>> {
    let header = NetworkHeader {
        format: NETWORK_FORMAT.into(),
        version: NETWORK_VERSION,
        host: options.host.clone(),
        interval_ms: options.every.as_millis().min(u128::from(u32::MAX)) as u32,
        targets: targets.iter().map(|t| t.name.clone()).collect(),
    };
    writeln!(
        out,
        "{}",
        serde_json::to_string(&header).map_err(std::io::Error::other)?
    )?;
    let mut tally: Vec<Tally> = targets
        .iter()
        .map(|t| Tally {
            target: t.name.clone(),
            attempts: 0,
            failed: 0,
        })
        .collect();
    let start = Instant::now();
    let mut round = 0u32;
    loop {
        if stop.load(Ordering::Relaxed) || start.elapsed() >= options.duration {
            break;
        }
        for (t, n) in targets.iter().zip(tally.iter_mut()) {
            let at = jiff::Timestamp::now().as_millisecond();
            let result = connector.connect(t, options.timeout);
            let record = NetworkRecord {
                t: at,
                target: t.name.clone(),
                ms: result
                    .as_ref()
                    .ok()
                    .map(|ms| (ms * 1000.0).round() / 1000.0),
                error: result.err(),
            };
            n.attempts += 1;
            n.failed += u64::from(record.error.is_some());
            writeln!(
                out,
                "{}",
                serde_json::to_string(&record).map_err(std::io::Error::other)?
            )?;
            progress(&record);
        }
        out.flush()?;
        round += 1;
        // Rounds keep their schedule whatever a slow connect took.
        let next = start + options.every * round;
        while Instant::now() < next {
            if stop.load(Ordering::Relaxed) {
                return Ok(tally);
            }
            std::thread::sleep((next - Instant::now()).min(Duration::from_millis(50)));
        }
    }
    Ok(tally)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::net::TcpListener;

    use super::*;

    #[test]
    fn a_real_listener_answers_and_a_closed_port_refuses() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let open = resolve(&listener.local_addr().unwrap().to_string()).unwrap();
        let ms = TcpConnector.connect(&open, Duration::from_secs(2)).unwrap();
        assert!((0.0..1000.0).contains(&ms), "{ms}");
        // A port nobody listens on: the bound socket is dropped first.
        let closed = {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            resolve(&l.local_addr().unwrap().to_string()).unwrap()
        };
        assert!(
            TcpConnector
                .connect(&closed, Duration::from_secs(2))
                .is_err()
        );
        assert!(resolve("no-port-here").is_err());
    }
}
