//! `probe serve`: the probe's readings as Prometheus metrics under the DCGM
//! exporter's names and labels, so dashboards built for dcgm-exporter and
//! Breakpoint's own pull work unchanged on a node without DCGM. XID errors
//! and lost GPUs are counters as well. Only `/metrics` is served.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use breakpoint_core::domain::GpuInfo;
use breakpoint_core::samples::Field;
use breakpoint_probe::{GpuEvent, GpuSource, ReadError, Reading};

use crate::scrape;

/// Each gauge: the DCGM name, the probe field, the divisor to DCGM's unit,
/// and its help text.
const GAUGES: &[(&str, Field, f64, &str)] = &[
    (
        "DCGM_FI_DEV_POWER_USAGE",
        Field::PowerMw,
        1000.0,
        "Power draw (in W).",
    ),
    (
        "DCGM_FI_DEV_GPU_TEMP",
        Field::TempGpuC,
        1.0,
        "GPU temperature (in C).",
    ),
    (
        "DCGM_FI_DEV_MEMORY_TEMP",
        Field::TempMemC,
        1.0,
        "Memory temperature (in C).",
    ),
    (
        "DCGM_FI_DEV_SM_CLOCK",
        Field::SmClockMhz,
        1.0,
        "SM clock frequency (in MHz).",
    ),
    (
        "DCGM_FI_DEV_MEM_CLOCK",
        Field::MemClockMhz,
        1.0,
        "Memory clock frequency (in MHz).",
    ),
    (
        "DCGM_FI_DEV_GPU_UTIL",
        Field::UtilGpuPct,
        1.0,
        "GPU utilization (in %).",
    ),
    (
        "DCGM_FI_DEV_MEM_COPY_UTIL",
        Field::UtilMemPct,
        1.0,
        "Memory utilization (in %).",
    ),
    (
        "DCGM_FI_DEV_FB_USED",
        Field::MemUsedMib,
        1.0,
        "Framebuffer memory used (in MiB).",
    ),
    (
        "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
        Field::ThrottleMask,
        1.0,
        "Current clock throttle reasons.",
    ),
    (
        "DCGM_FI_DEV_PCIE_TX_THROUGHPUT",
        Field::PcieTxKbps,
        1.0,
        "PCIe TX throughput (in KB/s).",
    ),
    (
        "DCGM_FI_DEV_PCIE_RX_THROUGHPUT",
        Field::PcieRxKbps,
        1.0,
        "PCIe RX throughput (in KB/s).",
    ),
    (
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
        Field::EnergyMj,
        1.0,
        "Total energy consumption since boot (in mJ).",
    ),
    (
        "DCGM_FI_DEV_FAN_SPEED",
        Field::FanPct,
        1.0,
        "Fan speed (in %).",
    ),
];

/// What the exporter knows of one GPU.
#[derive(Debug, Clone, Default)]
pub struct GpuState {
    pub info: GpuInfo,
    /// The latest reading; `None` while the GPU is lost.
    pub reading: Option<Reading>,
    /// The last XID seen (DCGM's XID_ERRORS gauge), 0 before any.
    pub last_xid: i64,
    pub xids: BTreeMap<i64, u64>,
    /// Times the GPU stopped answering.
    pub lost: u64,
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// The exposition text of every GPU's state.
pub fn render(gpus: &[GpuState], host: &str) -> String {
    let labels = |g: &GpuState| {
        let mut l = format!(
            "gpu=\"{}\",device=\"nvidia{}\",Hostname=\"{}\"",
            g.info.index,
            g.info.index,
            escape(host)
        );
        if let Some(u) = &g.info.uuid {
            let _ = write!(l, ",UUID=\"{}\"", escape(u));
        }
        if let Some(a) = &g.info.accelerator {
            let _ = write!(l, ",modelName=\"{}\"", escape(&a.raw));
        }
        if let Some(p) = &g.info.pci_bus_id {
            let _ = write!(l, ",pci_bus_id=\"{}\"", escape(p));
        }
        l
    };
    let mut out = String::new();
    for (name, field, divisor, help) in GAUGES {
        let rows: Vec<String> = gpus
            .iter()
            .filter_map(|g| {
                let v = g.reading.as_ref()?.get(*field)?;
                let v = v as f64 / divisor;
                Some(format!("{name}{{{}}} {v}\n", labels(g)))
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
        out.extend(rows);
    }
    let _ = writeln!(
        out,
        "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n# TYPE DCGM_FI_DEV_XID_ERRORS gauge"
    );
    for g in gpus {
        let _ = writeln!(
            out,
            "DCGM_FI_DEV_XID_ERRORS{{{}}} {}",
            labels(g),
            g.last_xid
        );
    }
    let _ = writeln!(
        out,
        "# HELP breakpoint_gpu_xid_errors_total XID errors seen by the probe, by code.\n# TYPE breakpoint_gpu_xid_errors_total counter"
    );
    for g in gpus {
        for (code, n) in &g.xids {
            let _ = writeln!(
                out,
                "breakpoint_gpu_xid_errors_total{{{},code=\"{code}\"}} {n}",
                labels(g)
            );
        }
    }
    let _ = writeln!(
        out,
        "# HELP breakpoint_gpu_lost_total Times the GPU stopped answering (fell off the bus, needed a reset).\n# TYPE breakpoint_gpu_lost_total counter\n# HELP breakpoint_gpu_up Whether the GPU answered the last reading.\n# TYPE breakpoint_gpu_up gauge"
    );
    for g in gpus {
        let _ = writeln!(out, "breakpoint_gpu_lost_total{{{}}} {}", labels(g), g.lost);
        let _ = writeln!(
            out,
            "breakpoint_gpu_up{{{}}} {}",
            labels(g),
            u8::from(g.reading.is_some())
        );
    }
    out
}

/// One round: read every GPU, take the events, update the states.
pub fn tick(source: &mut dyn GpuSource, gpus: &mut [GpuState]) {
    for g in gpus.iter_mut() {
        match source.read(g.info.index) {
            Ok(r) => g.reading = Some(r),
            Err(ReadError::Lost(_) | ReadError::ResetRequired(_)) => {
                if g.reading.is_some() || g.lost == 0 {
                    g.lost += 1;
                }
                g.reading = None;
            }
            // A passing failure: keep the last reading.
            Err(ReadError::Unreadable(_) | ReadError::Other(_)) => {}
        }
    }
    for e in source.events(0) {
        let GpuEvent::Xid { gpu, code } = e;
        if let Some(g) = gpus.iter_mut().find(|g| g.info.index == gpu) {
            g.last_xid = code;
            *g.xids.entry(code).or_default() += 1;
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: SocketAddr,
    pub interval: Duration,
    pub host: String,
}

/// Serve until `stop`: the sampling on this thread (GPU libraries like to
/// stay on one), the HTTP server on others (one per connection, so a slow
/// client never holds up a scrape). `ready` hears the address bound (port
/// 0 picks one).
pub fn serve(
    source: &mut dyn GpuSource,
    options: &ServeOptions,
    stop: &AtomicBool,
    ready: impl FnOnce(SocketAddr),
) -> Result<u64, String> {
    let inventory = source.inventory().map_err(|e| e.to_string())?;
    let mut gpus: Vec<GpuState> = inventory
        .into_iter()
        .map(|info| GpuState {
            info,
            ..GpuState::default()
        })
        .collect();
    let server = scrape::Server::bind(options.listen)
        .map_err(|e| format!("cannot listen on {}: {e}", options.listen))?;
    let bound = server
        .address()
        .map_err(|e| format!("the server has no address: {e}"))?;
    tick(source, &mut gpus);
    let text = Arc::new(Mutex::new(render(&gpus, &options.host)));
    let scrapes = Arc::new(Mutex::new(0u64));
    ready(bound);
    std::thread::scope(|scope| {
        let (shared, scrapes) = (text.clone(), scrapes.clone());
        let server = &server;
        scope.spawn(move || {
            server.run(stop, |request| {
                if request.path != "/metrics" {
                    return scrape::plain(404, "only /metrics is served here\n");
                }
                if request.method != "GET" {
                    return scrape::plain(405, "only GET is answered\n");
                }
                if let Ok(mut n) = scrapes.lock() {
                    *n += 1;
                }
                scrape::Response {
                    status: 200,
                    content_type: "text/plain; version=0.0.4; charset=utf-8",
                    body: shared.lock().map(|t| t.clone()).unwrap_or_default(),
                }
            });
        });
        let mut next = Instant::now() + options.interval;
        while !stop.load(Ordering::Relaxed) {
            let now = Instant::now();
            if now < next {
                std::thread::sleep((next - now).min(Duration::from_millis(100)));
                continue;
            }
            next += options.interval;
            tick(source, &mut gpus);
            if let Ok(mut t) = text.lock() {
                *t = render(&gpus, &options.host);
            }
        }
    });
    let scraped = scrapes.lock().map(|n| *n).unwrap_or(0);
    Ok(scraped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_under_dcgm_names_and_labels() {
        let gpus = vec![
            GpuState {
                info: GpuInfo {
                    index: 0,
                    uuid: Some("GPU-1".into()),
                    ..GpuInfo::default()
                },
                reading: Some(Reading {
                    values: vec![(Field::PowerMw, 251_500), (Field::UtilGpuPct, 99)],
                }),
                last_xid: 79,
                xids: BTreeMap::from([(79, 1)]),
                lost: 0,
            },
            GpuState {
                info: GpuInfo {
                    index: 1,
                    ..GpuInfo::default()
                },
                reading: None,
                lost: 1,
                ..GpuState::default()
            },
        ];
        let text = render(&gpus, "node-\"3\"");
        assert!(text.contains(
            "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",device=\"nvidia0\",Hostname=\"node-\\\"3\\\"\",UUID=\"GPU-1\"} 251.5\n"
        ));
        assert!(text.contains("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\""));
        assert!(
            !text.contains("DCGM_FI_DEV_POWER_USAGE{gpu=\"1\""),
            "a lost GPU has no gauges"
        );
        assert!(text.contains("breakpoint_gpu_xid_errors_total{gpu=\"0\",device=\"nvidia0\",Hostname=\"node-\\\"3\\\"\",UUID=\"GPU-1\",code=\"79\"} 1"));
        assert!(text.contains(
            "breakpoint_gpu_lost_total{gpu=\"1\",device=\"nvidia1\",Hostname=\"node-\\\"3\\\"\"} 1"
        ));
        assert!(text.contains(
            "breakpoint_gpu_up{gpu=\"1\",device=\"nvidia1\",Hostname=\"node-\\\"3\\\"\"} 0"
        ));
    }
}
