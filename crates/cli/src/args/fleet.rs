//! Fleets: pulling a fleet's history from Prometheus (`import
//! --prometheus`), serving the probe's readings (`probe serve`), and the
//! time window the ranking takes runs from.

use std::path::PathBuf;

use clap::Args;

use super::{ProbeSourceArgs, parse_interval_ms};

/// Pulling a fleet's history from a Prometheus-compatible server.
#[derive(Debug, Args, Clone)]
pub struct PullArgs {
    /// Pull DCGM series from this Prometheus (or Thanos, VictoriaMetrics,
    /// Mimir) instead of reading files: one run per node.
    #[arg(long, value_name = "URL", conflicts_with = "paths", requires_all = ["from", "to"])]
    pub prometheus: Option<String>,
    /// Start of the range (RFC 3339).
    #[arg(long, value_name = "TIME")]
    pub from: Option<jiff::Timestamp>,
    /// End of the range (RFC 3339).
    #[arg(long, value_name = "TIME")]
    pub to: Option<jiff::Timestamp>,
    /// Resolution of the range queries.
    #[arg(long, default_value = "15s", value_parser = parse_interval_ms)]
    pub step: u32,
    /// Label matchers narrowing the fleet: '{Hostname=~"node-.*"}'.
    #[arg(long)]
    pub selector: Option<String>,
    /// Nodes fetched at once.
    #[arg(long, default_value_t = 4)]
    pub concurrency: usize,
    /// A bearer token from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub token_env: Option<String>,
    /// A bearer token from this file.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Basic auth, user:password, from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub basic_auth_env: Option<String>,
    /// Trust this CA (PEM) besides the system's roots.
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// Give up on one request after this long.
    #[arg(long, default_value = "60s", value_parser = parse_interval_ms)]
    pub request_timeout: u32,
    /// Judge the fleet from summaries the server computes per GPU and
    /// window, fetching samples only where they flag something
    /// (docs/fleet.md); the default above 64 node-days.
    #[arg(long, conflicts_with = "samples")]
    pub summaries: bool,
    /// Pull every sample, however large the fleet.
    #[arg(long)]
    pub samples: bool,
    /// The window each summary covers: a whole number of steps that
    /// divides a day (15m, 1h, 6h, 1d …).
    #[arg(long, default_value = "1h", value_parser = parse_interval_ms)]
    pub window: u32,
}

#[derive(Debug, Args, Clone)]
pub struct ServeArgs {
    /// Address to listen on; loopback unless told otherwise (0.0.0.0:9400
    /// for a scraper on another machine).
    #[arg(long, default_value = "127.0.0.1:9400")]
    pub listen: std::net::SocketAddr,
    /// Time between readings.
    #[arg(long, default_value = "1s", value_parser = parse_interval_ms)]
    pub interval: u32,
    /// The Hostname label [default: this machine's name].
    #[arg(long)]
    pub host: Option<String>,
    #[command(flatten)]
    pub source: ProbeSourceArgs,
}

/// Which runs count, by when they were measured.
#[derive(Debug, Args, Clone, Default)]
pub struct WindowArgs {
    /// Only runs measured from this date or time on (2026-06-01, or RFC 3339).
    #[arg(long)]
    pub since: Option<String>,
    /// Only runs measured before this time, or up to the end of this date.
    #[arg(long)]
    pub until: Option<String>,
}
