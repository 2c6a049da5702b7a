//! Import from Prometheus over IPC, as summaries: a server on loopback
//! that answers discovery and the summary query for one steady GPU.

use std::io::{BufRead, BufReader, Write};

use serde_json::json;

use crate::harness::*;

/// A server with one node and one steady GPU: every summary figure of the
/// windows asked for says a full, busy hour at 600 W.
fn steady_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(&stream);
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).map_or(true, |n| n == 0) || header == "\r\n" {
                    break;
                }
            }
            let labels = r#""gpu":"0","UUID":"GPU-1","Hostname":"node-a","modelName":"NVIDIA H100 80GB HBM3""#;
            let body = if line.contains("/api/v1/series") {
                format!(
                    r#"{{"status":"success","data":[{{"__name__":"DCGM_FI_DEV_POWER_USAGE",{labels}}}]}}"#
                )
            } else {
                // The window ends where the query's range ends.
                let end = line
                    .split("end=")
                    .nth(1)
                    .and_then(|rest| rest.split(['&', ' ']).next())
                    .unwrap_or("0");
                let figures = [
                    ("points", "240"),
                    ("busy", "240"),
                    ("busy_power", "600"),
                    ("temp_points", "240"),
                    ("hot", "0"),
                    ("max_temp", "61"),
                    ("xid_max", "0"),
                    ("xid_changes", "0"),
                ];
                let series: Vec<String> = figures
                    .iter()
                    .map(|(name, v)| {
                        format!(r#"{{"metric":{{"bp_figure":"{name}",{labels}}},"values":[[{end},"{v}"]]}}"#)
                    })
                    .collect();
                format!(
                    r#"{{"status":"success","data":{{"resultType":"matrix","result":[{}]}}}}"#,
                    series.join(",")
                )
            };
            let mut stream = &stream;
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

#[test]
fn a_summary_pull_stores_a_run_of_windows_and_its_detail_says_so() {
    let h = Harness::new();
    let platform = h.platform("Cluster");
    let url = steady_server();
    let form = |summaries: bool, to: &str| {
        json!({ "form": {
            "platform_id": platform, "url": url,
            "from": "2026-06-01T08:00:00Z", "to": to, "step_s": 15,
            "selector": null, "token_env": null,
            "summaries": summaries, "window_s": null,
        } })
    };
    // Shorter than a window: refused next to its field.
    let err = h
        .call("pull_prometheus", form(true, "2026-06-01T08:10:00Z"))
        .unwrap_err();
    assert_eq!(err["field"], "to", "{err}");

    let pulled = h.ok("pull_prometheus", form(true, "2026-06-01T08:59:45Z"));
    let node = &pulled["nodes"][0];
    assert_eq!(node["node"], "node-a", "{pulled}");
    assert_eq!(node["samples"], 0, "a steady hour is not drilled into");
    assert_eq!(node["drilled"], json!([]));
    let run = node["runs"][0].as_i64().unwrap();
    let detail = h.ok("run_detail", json!({ "id": run }));
    assert_eq!(detail["run"]["samples"], 0);
    assert_eq!(
        detail["summary"][0],
        "1 window(s) of 1 hour, summarised by the server; 0 stretch(es) drilled into",
        "{detail}"
    );
    // The same hour again: already there.
    let again = h.ok("pull_prometheus", form(true, "2026-06-01T08:59:45Z"));
    assert_eq!(again["nodes"][0]["already"], true, "{again}");
}
