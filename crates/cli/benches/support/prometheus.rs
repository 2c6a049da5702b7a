//! Shared by the fleet benches: a history written as OpenMetrics, turned
//! into TSDB blocks by promtool, served by a Prometheus on loopback that
//! is stopped when dropped.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Whether promtool and prometheus are installed (Debian's package).
pub fn installed() -> bool {
    ["prometheus", "promtool"]
        .iter()
        .all(|tool| Command::new(tool).arg("--version").output().is_ok())
}

/// Blocks from an OpenMetrics file; the seconds it took.
pub fn create_blocks(history: &Path, data: &Path) -> Result<f64, Box<dyn std::error::Error>> {
    let t = Instant::now();
    let out = Command::new("promtool")
        .args(["tsdb", "create-blocks-from", "openmetrics", "--quiet"])
        // Blocks of a week: backfilling two-hour blocks is ten times slower.
        .arg("--max-block-duration=168h")
        .arg(history)
        .arg(data)
        .output()?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned().into());
    }
    Ok(t.elapsed().as_secs_f64())
}

pub struct Prometheus {
    child: Child,
    pub port: u16,
}

impl Prometheus {
    /// Serve `data` (its config beside it in `dir`) until dropped.
    pub fn start(dir: &Path, data: &Path) -> Result<Prometheus, Box<dyn std::error::Error>> {
        let config = dir.join("prometheus.yml");
        std::fs::write(&config, "global:\n  scrape_interval: 15s\n")?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!("--storage.tsdb.path={}", data.display()))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .arg("--storage.tsdb.retention.time=100y")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let mut server = Prometheus { child, port };
        let url = server.url();
        let ready = Instant::now();
        while ureq::get(&format!("{url}/-/ready"))
            .call()
            .map_or(true, |r| r.status().as_u16() != 200)
        {
            if ready.elapsed() > Duration::from_secs(120) {
                let _ = server.child.kill();
                return Err("Prometheus did not get ready".into());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(server)
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
