//! The fleet paths against a real Prometheus (Debian's package, which
//! `scripts/setup` installs): history loaded with promtool, pulled back
//! through the HTTP API, and `probe serve` scraped by it.

// A failed unwrap is a failed test here.
#![allow(clippy::unwrap_used)]

mod prometheus;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use breakpoint_core::domain::{EventKind, Platform, PlatformKind};
use breakpoint_core::import::{Format, ImportOptions, ImportOutcome, import_reader};
use breakpoint_core::samples::Field;
use breakpoint_core::store::Store;
use breakpoint_fleet::api::{ApiError, Credentials, HttpApi, PromApi};
use breakpoint_fleet::pull::summary::pull_summaries;
use breakpoint_fleet::pull::{PullRequest, pull};
use prometheus::{Fleet, Server};

fn new_store() -> (Store, i64) {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("Cluster", PlatformKind::Other, None).unwrap())
        .unwrap();
    (store, p.id)
}

fn request(server: &Server, fleet: &Fleet, platform_id: i64) -> PullRequest {
    PullRequest {
        from: fleet.start(),
        to: fleet.end(),
        step_s: fleet.step_s,
        selector: None,
        concurrency: 3,
        url: server.url(),
        platform_id,
    }
}

fn api(server: &Server) -> HttpApi {
    HttpApi::new(
        &server.url(),
        &Credentials::None,
        None,
        Duration::from_secs(30),
    )
    .unwrap()
}

#[test]
fn a_fleet_pulled_from_prometheus_matches_its_history_file() {
    let fleet = Fleet::new(4, 2, 6);
    let server = Server::with_history(&fleet);
    let (store, platform) = new_store();
    let report = pull(
        &store,
        &api(&server),
        &request(&server, &fleet, platform),
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    // One run per node, its GPUs by UUID.
    assert_eq!(report.nodes.len(), 4);
    let runs = store.runs(Some(platform)).unwrap();
    assert_eq!(runs.len(), 4);
    for run in &runs {
        assert_eq!(run.inventory.len(), 2, "{:?}", run.provenance.file_name);
        assert!(run.inventory.iter().all(|g| g.uuid.is_some()));
        let p = &run.metadata["prometheus"];
        assert_eq!(p["url"], server.url());
        assert!(
            p["query"]
                .as_str()
                .unwrap()
                .contains("DCGM_FI_DEV_(POWER_USAGE|")
        );
    }

    // The same history imported from its file: the same samples, value for
    // value — except after the GPU that fell off the bus, whose last values
    // Prometheus repeats for its 5-minute lookback (docs/fleet.md).
    let (file_store, file_platform) = new_store();
    let options = ImportOptions {
        tz: jiff::tz::TimeZone::UTC,
        ..ImportOptions::new(file_platform)
    };
    let ImportOutcome::Imported(file) = import_reader(
        &file_store,
        fleet.openmetrics().as_bytes(),
        "history.om",
        Format::PromText,
        &options,
        None,
    )
    .unwrap() else {
        panic!("imported before?")
    };
    let pulled: u64 = runs.iter().map(|r| r.sample_count).sum();
    let lookback_points = 5 * 60 / u64::from(fleet.step_s);
    assert_eq!(pulled, file.samples + lookback_points);

    let node = |name: &str| {
        runs.iter()
            .find(|r| {
                r.provenance
                    .file_name
                    .as_deref()
                    .unwrap_or("")
                    .contains(name)
            })
            .unwrap()
    };
    // Node 1's GPU 0 sags from about 600 W to about 450 W half-way.
    let sagging = node("node-1");
    let frame = store
        .read_samples(sagging.id, 0, None, Some(&[Field::PowerMw]))
        .unwrap();
    let (t, mw) = fleet.power_at(1, 0, 100);
    let i = frame.t_ms.iter().position(|x| *x == t * 1000).unwrap();
    assert_eq!(frame.column(Field::PowerMw).unwrap().get(i), Some(mw));
    let last = frame
        .column(Field::PowerMw)
        .unwrap()
        .get(frame.len() - 1)
        .unwrap();
    assert!(last < 470_000, "sagged: {last}");
    // Node 2's GPU 1 fell off the bus: its XID 79 is an event.
    let lost = node("node-2");
    let xids: Vec<i64> = store
        .events(lost.id)
        .unwrap()
        .iter()
        .filter(|e| e.kind == EventKind::Xid)
        .filter_map(|e| e.code)
        .collect();
    assert_eq!(xids, vec![79]);

    // The planted faults as the metrics and the hardware evidence say them.
    let values = breakpoint_core::metrics::compute_run(&store, sagging).unwrap();
    let drop = values
        .iter()
        .find(|v| v.key == "sustain.power_drop_pct")
        .unwrap()
        .value;
    assert!(drop > 20.0, "power sag: {drop} %");
    let evidence = breakpoint_api::hardware::of_platform(&store, platform).unwrap();
    let fell_off = evidence.xids.iter().find(|x| x.code == 79).unwrap();
    assert!(fell_off.counted && fell_off.count == 1, "{fell_off:?}");

    // And as the platform's figures say them: neither fault disappears in
    // the fleet. The sag is named by node and GPU with its share; the GPU
    // that fell off is one interruption (its XID, not counted again as a
    // loss) and a third of its six hours lost.
    let platform_figures = breakpoint_core::metrics::platform_evidence(&store).unwrap();
    let cluster = &platform_figures[0];
    let sag = &cluster.metrics["sustain.power_drop_pct"];
    assert_eq!(sag.worst[0].node, "node-1", "{:?}", sag.worst);
    assert!(sag.worst[0].gpu.as_deref().unwrap().starts_with("GPU 0"));
    assert!(sag.worst[0].value > 20.0, "{:?}", sag.worst);
    assert!((sag.worst[0].share - 0.25).abs() < 0.02, "{:?}", sag.worst);
    let interruptions = cluster.value("sustain.interruptions_per_100h").unwrap();
    let gpu_hours = f64::from(fleet.nodes * fleet.gpus * fleet.hours);
    assert!(
        (interruptions - 100.0 / gpu_hours).abs() < 0.05,
        "{interruptions}"
    );
    let availability = cluster.value("sustain.availability_pct").unwrap();
    let lost_hours = f64::from(fleet.hours) / 3.0;
    assert!(
        (availability - 100.0 * (1.0 - lost_hours / gpu_hours)).abs() < 0.2,
        "{availability}"
    );
    let ranked =
        breakpoint_api::ranking::rank(&store, &breakpoint_api::ranking::RankRequest::default())
            .unwrap();
    let sustain = ranked.ranking.platforms[0].breakpoints[1].score.unwrap();
    assert!(
        sustain < 90.0,
        "a fleet with a sag and a lost GPU: sustain {sustain}"
    );
}

/// The platform's sustain figures and score, as the ranking reads them.
fn sustain_verdict(store: &Store) -> (std::collections::BTreeMap<String, f64>, f64) {
    let evidence = breakpoint_core::metrics::platform_evidence(store).unwrap();
    let figures = [
        "sustain.power_drop_pct",
        "sustain.phantom_util_pct",
        "sustain.throttle_pct",
        "sustain.hot_time_pct",
        "sustain.max_temp_c",
        "sustain.interruptions_per_100h",
        "sustain.availability_pct",
        "sustain.faulty_gpus_pct",
    ]
    .into_iter()
    .filter_map(|k| Some((k.to_string(), evidence[0].value(k)?)))
    .collect();
    let ranked =
        breakpoint_api::ranking::rank(store, &breakpoint_api::ranking::RankRequest::default())
            .unwrap();
    let score = ranked.ranking.platforms[0].breakpoints[1].score.unwrap();
    (figures, score)
}

#[test]
fn summaries_and_their_drill_downs_give_the_full_pulls_verdict_from_a_fraction_of_the_samples() {
    let fleet = Fleet::new(4, 2, 6);
    let server = Server::with_history(&fleet);
    let api = api(&server);
    let cancel = AtomicBool::new(false);
    let (whole, p) = new_store();
    pull(&whole, &api, &request(&server, &fleet, p), &cancel, &|_| {}).unwrap();
    let (summarised, p) = new_store();
    let report = pull_summaries(
        &summarised,
        &api,
        &request(&server, &fleet, p),
        3600,
        &cancel,
        &|_| {},
    )
    .unwrap();

    // The planted faults, and nothing else, were drilled into: node-1's
    // sag where it starts, node-2's XID and its GPU gone after it, node-3's
    // thermal slowdown.
    let drilled: Vec<(String, Vec<String>)> = report
        .nodes
        .iter()
        .flat_map(|n| n.drilled.iter().map(|d| (n.node.clone(), d.why.clone())))
        .collect();
    assert_eq!(drilled.len(), 3, "{drilled:?}");
    assert_eq!(
        drilled[0],
        ("node-1".into(), vec!["a level change (GPU 0)".into()])
    );
    assert_eq!(drilled[1].0, "node-2");
    for why in ["an XID (GPU 1)", "a GPU gone (GPU 1)"] {
        assert!(drilled[1].1.contains(&why.to_string()), "{drilled:?}");
    }
    assert_eq!(
        drilled[2],
        ("node-3".into(), vec!["throttling (GPU 0)".into()])
    );
    assert_eq!(
        report.nodes.iter().map(|n| n.windows).sum::<usize>(),
        4 * 2 * 6
    );

    // A summary run says what it summarised and where it looked closer;
    // the drilled stretch says it counts there.
    let node_1 = report.nodes.iter().find(|n| n.node == "node-1").unwrap();
    let detail = breakpoint_api::runs::detail(&summarised, node_1.run.unwrap()).unwrap();
    let summary = detail.summary.unwrap();
    assert_eq!((summary.windows, summary.window_s), (12, 3600));
    let lines = summary.lines();
    assert!(lines[0].starts_with("12 window(s) of 1 hour"), "{lines:?}");
    assert!(lines[1].contains("a level change (GPU 0)"), "{lines:?}");
    let drilled_run = summary.drilled[0].run.unwrap();
    let drilled = breakpoint_api::runs::detail(&summarised, drilled_run).unwrap();
    assert!(
        drilled.not_scored.unwrap().contains("they count there"),
        "drilled samples are detail"
    );

    // explain says where the figures come from.
    let evidence = breakpoint_core::metrics::platform_evidence(&summarised).unwrap();
    let drop = &evidence[0].metrics["sustain.power_drop_pct"];
    assert!(
        drop.details.iter().any(|d| d
            .contains("from 12 windows summarised by the server; drilled into 1:")
            && d.contains("UTC: a level change (GPU 0)")),
        "{:?}",
        drop.details
    );

    // At most a quarter of the samples stored.
    let samples = |store: &Store| -> u64 {
        store
            .runs(None)
            .unwrap()
            .iter()
            .map(|r| r.sample_count)
            .sum()
    };
    let (all, some) = (samples(&whole), samples(&summarised));
    assert_eq!(some, report.samples_stored);
    assert!(some * 4 <= all, "{some} of {all} samples stored");

    // The same verdict: every sustain figure, and the score within 2 points.
    let (full_figures, full_score) = sustain_verdict(&whole);
    let (summary_figures, summary_score) = sustain_verdict(&summarised);
    assert_eq!(
        full_figures.keys().collect::<Vec<_>>(),
        summary_figures.keys().collect::<Vec<_>>()
    );
    for (key, full) in &full_figures {
        let summary = summary_figures[key];
        let tolerance = 0.02 * full.abs().max(1.0);
        assert!(
            (full - summary).abs() <= tolerance,
            "{key}: {full} pulled whole, {summary} from summaries"
        );
    }
    assert!(
        (full_score - summary_score).abs() <= 2.0,
        "sustain {full_score} pulled whole, {summary_score} from summaries"
    );
}

#[test]
fn a_summary_pull_cut_off_half_way_asks_again_only_for_the_rest() {
    let fleet = Fleet::new(3, 1, 3);
    let server = Server::with_history(&fleet);
    let api = api(&server);
    let (store, p) = new_store();
    let whole = request(&server, &fleet, p);
    // Stopped once the first node is stored.
    let cancel = AtomicBool::new(false);
    let stopped = pull_summaries(&store, &api, &whole, 3600, &cancel, &|progress| {
        if matches!(
            progress,
            breakpoint_fleet::pull::Progress::Summarised { .. }
        ) {
            cancel.store(true, Ordering::Relaxed);
        }
    });
    // Said with the node it kept.
    let said = stopped.unwrap_err().to_string();
    assert!(
        said.starts_with("cancelled; the 1 node(s) stored before it are kept (node-"),
        "{said}"
    );
    let summaries = |store: &Store| {
        store
            .runs(None)
            .unwrap()
            .into_iter()
            .filter(|r| r.metadata.contains_key(breakpoint_core::domain::SUMMARISED))
            .count()
    };
    assert_eq!(summaries(&store), 1, "the finished node is kept");
    let again =
        pull_summaries(&store, &api, &whole, 3600, &AtomicBool::new(false), &|_| {}).unwrap();
    let already: Vec<bool> = again.nodes.iter().map(|n| n.already).collect();
    assert_eq!(already, [true, false, false]);
    // One discovery, then for each of the two others a summary query, one
    // for the reason bits (the power cap shows now and then), and one for
    // each stretch drilled into.
    let drilled: usize = again.nodes.iter().map(|n| n.drilled.len()).sum();
    assert_eq!(again.requests as usize, 1 + 2 * 2 + drilled, "{again:?}");
    assert_eq!(summaries(&store), 3);
}

#[test]
fn a_fleet_without_dcgm_is_not_summarised_but_told_to_pull_its_samples() {
    // Only nvidia_gpu_exporter's power: found, but nothing DCGM to summarise.
    let start = (jiff::Timestamp::now().as_second() / 3600 - 6) * 3600;
    let mut history = String::from("# TYPE nvidia_smi_power_draw_watts gauge\n");
    for i in 0..240 {
        history.push_str(&format!(
            "nvidia_smi_power_draw_watts{{uuid=\"GPU-1\",Hostname=\"node-x\"}} 300 {}\n",
            start + i * 15
        ));
    }
    history.push_str("# EOF\n");
    let server = Server::with_openmetrics(&history);
    let (store, p) = new_store();
    let request = PullRequest {
        from: jiff::Timestamp::from_second(start).unwrap(),
        to: jiff::Timestamp::from_second(start + 3600 - 15).unwrap(),
        step_s: 15,
        selector: None,
        concurrency: 1,
        url: server.url(),
        platform_id: p,
    };
    let refused = pull_summaries(
        &store,
        &api(&server),
        &request,
        3600,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        refused.contains("node-x: no DCGM series to summarise") && refused.contains("--samples"),
        "{refused}"
    );
    assert!(store.runs(None).unwrap().is_empty());
}

#[test]
fn an_overlapping_range_adds_nothing_twice() {
    let fleet = Fleet::new(2, 1, 6);
    let server = Server::with_history(&fleet);
    let (store, platform) = new_store();
    let api = api(&server);
    let whole = request(&server, &fleet, platform);
    let first_half = PullRequest {
        to: fleet.start() + jiff::SignedDuration::from_hours(3),
        ..whole.clone()
    };
    let cancel = AtomicBool::new(false);
    pull(&store, &api, &first_half, &cancel, &|_| {}).unwrap();
    let half: u64 = store
        .runs(None)
        .unwrap()
        .iter()
        .map(|r| r.sample_count)
        .sum();
    let report = pull(&store, &api, &whole, &cancel, &|_| {}).unwrap();
    assert!(report.nodes.iter().all(|n| n.runs.len() == 1 && !n.already));
    let after: u64 = store
        .runs(None)
        .unwrap()
        .iter()
        .map(|r| r.sample_count)
        .sum();

    let (fresh, fresh_platform) = new_store();
    pull(
        &fresh,
        &api,
        &request(&server, &fleet, fresh_platform),
        &cancel,
        &|_| {},
    )
    .unwrap();
    let once: u64 = fresh
        .runs(None)
        .unwrap()
        .iter()
        .map(|r| r.sample_count)
        .sum();
    assert!(half > 0 && half < once);
    assert_eq!(after, once, "the second pull fetched only the rest");
    let again = pull(&store, &api, &whole, &cancel, &|_| {}).unwrap();
    assert!(again.nodes.iter().all(|n| n.already && n.runs.is_empty()));
    assert_eq!(store.runs(None).unwrap().len(), 4);
}

/// The real server, killed before answer `die_at` (counted from 0).
struct Dying<'a> {
    api: HttpApi,
    server: &'a Server,
    answers: AtomicUsize,
    die_at: usize,
}

impl Dying<'_> {
    fn count(&self) {
        if self.answers.fetch_add(1, Ordering::SeqCst) == self.die_at {
            self.server.kill();
        }
    }
}

impl PromApi for Dying<'_> {
    fn get(&self, path: &str, params: &[(&str, String)]) -> Result<serde_json::Value, ApiError> {
        self.count();
        self.api.get(path, params)
    }

    fn get_text(&self, path: &str, params: &[(&str, String)]) -> Result<String, ApiError> {
        self.count();
        self.api.get_text(path, params)
    }
}

#[test]
fn a_server_killed_mid_pull_stores_nothing_and_says_so() {
    let fleet = Fleet::new(4, 1, 2);
    let server = Server::with_history(&fleet);
    let (store, platform) = new_store();
    let dying = Dying {
        api: api(&server),
        server: &server,
        answers: AtomicUsize::new(0),
        die_at: 2,
    };
    let request = PullRequest {
        concurrency: 1,
        ..request(&server, &fleet, platform)
    };
    let e = pull(&store, &dying, &request, &AtomicBool::new(false), &|_| {}).unwrap_err();
    let message = e.to_string();
    assert!(
        message.contains("cannot connect") && message.contains("nothing was stored"),
        "{message}"
    );
    assert!(store.runs(None).unwrap().is_empty());
}

/// The real server, killed as the pull first asks about `node`.
struct DyingAt<'a> {
    api: HttpApi,
    server: &'a Server,
    node: &'a str,
}

impl DyingAt<'_> {
    fn asked(&self, params: &[(&str, String)]) {
        let quoted = format!("\"{}\"", self.node);
        if params.iter().any(|(_, v)| v.contains(&quoted)) {
            self.server.kill();
        }
    }
}

impl PromApi for DyingAt<'_> {
    fn get(&self, path: &str, params: &[(&str, String)]) -> Result<serde_json::Value, ApiError> {
        self.asked(params);
        self.api.get(path, params)
    }

    fn get_text(&self, path: &str, params: &[(&str, String)]) -> Result<String, ApiError> {
        self.asked(params);
        self.api.get_text(path, params)
    }
}

/// A summary pull stores node by node: one that dies on the second node
/// says the first was stored and kept, never "nothing was stored".
#[test]
fn a_summary_pull_stopped_on_a_later_node_says_what_it_kept() {
    let fleet = Fleet::new(3, 1, 2);
    let server = Server::with_history(&fleet);
    let (store, platform) = new_store();
    let dying = DyingAt {
        api: api(&server),
        server: &server,
        node: "node-1",
    };
    let e = pull_summaries(
        &store,
        &dying,
        &request(&server, &fleet, platform),
        3600,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(!e.contains("nothing was stored"), "{e}");
    assert!(
        e.contains(
            "the 1 node(s) stored before it are kept (node-0): run the pull again for the rest"
        ),
        "{e}"
    );
    let summaries = store
        .runs(None)
        .unwrap()
        .into_iter()
        .filter(|r| r.metadata.contains_key(breakpoint_core::domain::SUMMARISED))
        .count();
    assert_eq!(summaries, 1);
}

/// The server, and a second writer on the workspace that writes whenever a
/// drilled stretch is being fetched: it must not wait on the pull.
struct WriterBeside {
    api: HttpApi,
    /// Its own connection to the workspace (a `Store` is used by one
    /// thread at a time).
    other: std::sync::Mutex<Store>,
    waited: std::sync::Mutex<Vec<Duration>>,
}

impl PromApi for WriterBeside {
    fn get(&self, path: &str, params: &[(&str, String)]) -> Result<serde_json::Value, ApiError> {
        self.api.get(path, params)
    }

    fn get_text(&self, path: &str, params: &[(&str, String)]) -> Result<String, ApiError> {
        let drilling = params
            .iter()
            .any(|(k, v)| *k == "query" && !v.contains("bp_figure"));
        if drilling {
            let started = std::time::Instant::now();
            self.other
                .lock()
                .unwrap()
                .set_setting("currency", "USD")
                .unwrap();
            self.waited.lock().unwrap().push(started.elapsed());
        }
        self.api.get_text(path, params)
    }
}

/// A summary pull fetches outside its transactions: another writer on the
/// same workspace (`rates add` beside it) is never held behind the network.
#[test]
fn a_summary_pull_holds_no_lock_while_it_waits_on_the_server() {
    let fleet = Fleet::new(2, 1, 3);
    let server = Server::with_history(&fleet);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.db");
    let store = Store::open(&path).unwrap();
    let platform = store
        .create_platform(&Platform::new("Cluster", PlatformKind::Other, None).unwrap())
        .unwrap()
        .id;
    let beside = WriterBeside {
        api: api(&server),
        other: std::sync::Mutex::new(Store::open(&path).unwrap()),
        waited: std::sync::Mutex::new(Vec::new()),
    };
    let report = pull_summaries(
        &store,
        &beside,
        &request(&server, &fleet, platform),
        3600,
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    let waited = beside.waited.into_inner().unwrap();
    let drilled: usize = report.nodes.iter().map(|n| n.drilled.len()).sum();
    assert!(
        drilled > 0 && !waited.is_empty(),
        "nothing drilled: {report:?}"
    );
    assert!(
        waited.iter().all(|w| *w < Duration::from_secs(1)),
        "a writer waited on the pull: {waited:?}"
    );
}

#[test]
fn queries_that_error_and_ranges_without_data_are_refused() {
    let fleet = Fleet::new(1, 1, 1);
    let server = Server::with_history(&fleet);
    let (store, platform) = new_store();
    let api = api(&server);
    let cancel = AtomicBool::new(false);
    let empty = PullRequest {
        from: fleet.start() - jiff::SignedDuration::from_hours(48),
        to: fleet.start() - jiff::SignedDuration::from_hours(24),
        ..request(&server, &fleet, platform)
    };
    let e = pull(&store, &api, &empty, &cancel, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("no DCGM series between"), "{e}");
    let bad = PullRequest {
        selector: Some("{Hostname=~\"(\"}".into()),
        ..request(&server, &fleet, platform)
    };
    let e = pull(&store, &api, &bad, &cancel, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains("the server answered bad_data"), "{e}");
    assert!(store.runs(None).unwrap().is_empty());
}

#[test]
fn probe_serve_is_scraped_by_prometheus_and_pulled_back() {
    use breakpoint_fleet::serve::{ServeOptions, serve};

    let trace = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/probe/stress-steady.json");
    let stop = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut source = breakpoint_probe::ProbeSource::open(Some(&trace)).unwrap();
            let options = ServeOptions {
                listen: "127.0.0.1:0".parse().unwrap(),
                interval: Duration::from_millis(250),
                host: "node-7".into(),
            };
            serve(source.as_dyn(), &options, &stop, |addr| {
                tx.send(addr).unwrap()
            })
            .unwrap()
        });
        let addr = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        // Anything but /metrics is not served.
        let other = ureq::get(&format!("http://{addr}/"))
            .config()
            .http_status_as_error(false)
            .build()
            .call()
            .unwrap();
        assert_eq!(other.status().as_u16(), 404);

        let server = Server::scraping(&addr.to_string());
        let api = api(&server);
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        let answer = loop {
            let data = api
                .get(
                    "/api/v1/query",
                    &[("query", "DCGM_FI_DEV_POWER_USAGE".to_string())],
                )
                .unwrap();
            if data["result"].as_array().is_some_and(|r| !r.is_empty()) {
                break data;
            }
            assert!(std::time::Instant::now() < deadline, "never scraped");
            std::thread::sleep(Duration::from_millis(500));
        };
        let series = &answer["result"][0];
        assert_eq!(series["metric"]["Hostname"], "node-7");
        assert_eq!(
            series["metric"]["UUID"],
            "GPU-aaaa0000-0000-0000-0000-000000000000"
        );
        // The steady trace settles at full load; the gauge is in watts.
        let watts: f64 = series["value"][1].as_str().unwrap().parse().unwrap();
        assert!((50.0..500.0).contains(&watts), "{watts}");
        std::thread::sleep(Duration::from_secs(3));

        // Breakpoint's own pull reads what the exporter fed.
        let (store, platform) = new_store();
        let now = jiff::Timestamp::now();
        let request = PullRequest {
            from: now - jiff::SignedDuration::from_secs(60),
            to: now,
            step_s: 1,
            selector: Some("{job=\"probe\"}".into()),
            concurrency: 1,
            url: server.url(),
            platform_id: platform,
        };
        let report = pull(&store, &api, &request, &AtomicBool::new(false), &|_| {}).unwrap();
        assert_eq!(report.nodes.len(), 1);
        assert_eq!(report.nodes[0].node, "node-7");
        assert!(report.nodes[0].samples >= 3, "{report:?}");
        stop.store(true, Ordering::Relaxed);
    });
}
