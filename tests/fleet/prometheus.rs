//! A seeded fleet history and a real Prometheus serving it: the history is
//! written as OpenMetrics, turned into TSDB blocks by promtool, and served
//! by a Prometheus on 127.0.0.1 with a data directory of its own, stopped
//! when the test ends.

use std::fmt::Write;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use jiff::Timestamp;

/// `nodes` × `gpus` H100s for `hours` at 15 s, with two planted faults:
/// node-1's GPU 0 sags from about 600 W to about 450 W half-way, and
/// node-2's last GPU falls off the bus two thirds of the way (XID 79 on its
/// last readings, then nothing); node-3's GPU 0 is held back by software
/// thermal slowdown for ten minutes of its third hour.
pub struct Fleet {
    pub nodes: u32,
    pub gpus: u32,
    pub hours: u32,
    pub step_s: u32,
    start_s: i64,
}

impl Fleet {
    pub fn new(nodes: u32, gpus: u32, hours: u32) -> Fleet {
        // Recent enough for Prometheus to keep, whole hours for stable
        // query steps.
        let now = Timestamp::now().as_second();
        let start_s = (now / 3600 - i64::from(hours) - 4) * 3600;
        Fleet {
            nodes,
            gpus,
            hours,
            step_s: 15,
            start_s,
        }
    }

    fn points(&self) -> i64 {
        i64::from(self.hours) * 3600 / i64::from(self.step_s)
    }

    pub fn start(&self) -> Timestamp {
        Timestamp::from_second(self.start_s).unwrap()
    }

    /// The last sample's time.
    pub fn end(&self) -> Timestamp {
        Timestamp::from_second(self.start_s + (self.points() - 1) * i64::from(self.step_s)).unwrap()
    }

    /// Where a GPU's series stops, if it falls off the bus.
    fn lost_at(&self, node: u32, gpu: u32) -> Option<i64> {
        (node == 2 && gpu + 1 == self.gpus).then(|| self.points() * 2 / 3)
    }

    /// The time (s) and power (mW) of a GPU's i-th reading.
    pub fn power_at(&self, node: u32, gpu: u32, i: i64) -> (i64, i64) {
        // A seeded spread of ±10 W, to the milliwatt.
        let mut x = (u64::from(node) << 40) ^ (u64::from(gpu) << 32) ^ i as u64;
        x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^= x >> 29;
        let noise = (x % 20_001) as i64 - 10_000;
        let base = if node == 1 && gpu == 0 && i >= self.points() / 2 {
            450_000
        } else {
            600_000
        };
        (self.start_s + i * i64::from(self.step_s), base + noise)
    }

    pub fn openmetrics(&self) -> String {
        let mut out = String::new();
        let families: [(&str, &ValueOf<'_>); 6] = [
            ("DCGM_FI_DEV_POWER_USAGE", &|n, g, i| {
                let (_, mw) = self.power_at(n, g, i);
                format!("{}.{:03}", mw / 1000, mw % 1000)
            }),
            ("DCGM_FI_DEV_GPU_TEMP", &|n, g, i| {
                (55 + (i64::from(n + g) + i) % 9).to_string()
            }),
            ("DCGM_FI_DEV_SM_CLOCK", &|_, _, _| "1980".into()),
            ("DCGM_FI_DEV_GPU_UTIL", &|_, _, i| {
                if i % 40 == 0 { "97" } else { "100" }.into()
            }),
            // The clock-event mask: a software power cap now and then
            // (not counted as throttling), and ten minutes of software
            // thermal slowdown on node-3's GPU 0 in the third hour.
            ("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", &|n, g, i| {
                let minute = i * i64::from(self.step_s) / 60;
                if n == 3 && g == 0 && (120..130).contains(&minute) {
                    "32".into()
                } else if i % 50 == 0 {
                    "4".into()
                } else {
                    "0".into()
                }
            }),
            (
                "DCGM_FI_DEV_XID_ERRORS",
                &|n, g, i| match self.lost_at(n, g) {
                    Some(l) if i + 4 >= l => "79".into(),
                    _ => "0".into(),
                },
            ),
        ];
        for (name, value) in families {
            let _ = writeln!(out, "# TYPE {name} gauge");
            for n in 0..self.nodes {
                for g in 0..self.gpus {
                    let end = self.lost_at(n, g).unwrap_or(self.points());
                    for i in 0..end {
                        let t = self.start_s + i * i64::from(self.step_s);
                        let _ = writeln!(
                            out,
                            "{name}{{gpu=\"{g}\",UUID=\"GPU-{n:04}-{g:04}-0000-0000-000000000000\",device=\"nvidia{g}\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-{n}\"}} {} {t}",
                            value(n, g, i)
                        );
                    }
                }
            }
        }
        out.push_str("# EOF\n");
        out
    }
}

/// A series' value at (node, GPU, reading).
type ValueOf<'a> = dyn Fn(u32, u32, i64) -> String + 'a;

/// A Prometheus on 127.0.0.1, killed when dropped.
pub struct Server {
    child: Mutex<Option<Child>>,
    port: u16,
    _dir: tempfile::TempDir,
}

fn tool(name: &str) -> String {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "{name} is not installed: scripts/setup installs Debian's prometheus package"
    );
    name.to_string()
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Server {
    /// Serving `fleet`'s history.
    pub fn with_history(fleet: &Fleet) -> Server {
        Server::with_openmetrics(&fleet.openmetrics())
    }

    /// Serving a history written as OpenMetrics.
    pub fn with_openmetrics(history_text: &str) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let history = dir.path().join("history.om");
        std::fs::write(&history, history_text).unwrap();
        let data = dir.path().join("data");
        let out = Command::new(tool("promtool"))
            .args(["tsdb", "create-blocks-from", "openmetrics"])
            .arg(&history)
            .arg(&data)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "promtool: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Server::start(dir, "global:\n  scrape_interval: 15s\n")
    }

    /// Scraping `target` (host:port) every second.
    pub fn scraping(target: &str) -> Server {
        let dir = tempfile::tempdir().unwrap();
        Server::start(
            dir,
            &format!(
                "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: probe\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
    }

    fn start(dir: tempfile::TempDir, config: &str) -> Server {
        let config_path = dir.path().join("prometheus.yml");
        std::fs::write(&config_path, config).unwrap();
        let port = free_port();
        let child = Command::new(tool("prometheus"))
            .arg(format!("--config.file={}", config_path.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .arg("--storage.tsdb.retention.time=100y")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = Server {
            child: Mutex::new(Some(child)),
            port,
            _dir: dir,
        };
        let ready = format!("{}/-/ready", server.url());
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if ureq::get(&ready)
                .call()
                .is_ok_and(|r| r.status().as_u16() == 200)
            {
                break;
            }
            assert!(Instant::now() < deadline, "Prometheus did not get ready");
            std::thread::sleep(Duration::from_millis(200));
        }
        server
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn kill(&self) {
        if let Some(mut child) = self.child.lock().unwrap().take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
