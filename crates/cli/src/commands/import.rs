//! `breakpoint import FILE|DIR…`: one run per file, each all or nothing.

use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use breakpoint_api::importing::{self, FileResult, ImportObserver};
use breakpoint_api::importing::{
    Duplicate, ImportOptions, ImportOutcome, ImportTimings, timestamps,
};
use breakpoint_api::text;

use super::{Context, Failure, Outcome};
use crate::args::ImportArgs;
use crate::output;

/// Files above this size get a progress line on a terminal.
const PROGRESS_ABOVE: u64 = 4 << 20;

/// A progress line on the terminal for large files, erased when done, and
/// each file's result as soon as it is known (unless printing JSON).
struct Terminal {
    name: String,
    size: u64,
    shown: bool,
    json: bool,
}

impl ImportObserver for Terminal {
    fn started(&mut self, _: usize, _: usize, path: &Path, bytes: u64) {
        self.name = text::printable(&path.display().to_string()).into_owned();
        self.size = bytes;
        self.shown = bytes > PROGRESS_ABOVE && std::io::stderr().is_terminal();
    }

    fn progress(&mut self, bytes: u64) {
        if self.shown {
            eprint!(
                "\r{}: {:.0} of {:.0} MB ({:.0} %)",
                self.name,
                bytes as f64 / 1e6,
                self.size as f64 / 1e6,
                100.0 * bytes as f64 / self.size.max(1) as f64
            );
        }
    }

    fn finished(&mut self, _: usize, result: &FileResult) {
        if self.shown {
            eprint!("\r\x1b[2K");
        }
        if self.json {
            return;
        }
        match result {
            FileResult::NotImported { .. } => {
                eprintln!("{}", text::printable_multiline(&describe(result)))
            }
            // A closed pipe is noticed when the summary is written.
            _ => {
                let _ = output::print(&describe(result));
            }
        }
    }
}

pub fn run(ctx: &Context, args: ImportArgs) -> Outcome {
    let platform = ctx.store.platform(&args.platform)?;
    if let Some(url) = &args.pull.prometheus {
        return pull(ctx, &args, url, platform.id, &platform.name);
    }
    let given = args
        .tz
        .as_deref()
        .map(timestamps::zone_named)
        .transpose()
        .map_err(|e| Failure::Refused(format!("--tz: {e}")))?;
    let options = ImportOptions::for_platform(&platform, given);
    let tz = options.tz.clone();
    let start = args
        .start
        .as_deref()
        .map(|s| parse_start(s, &tz))
        .transpose()
        .map_err(|e| Failure::Refused(format!("--start: {e}")))?;
    let options = ImportOptions {
        offering_id: args.offering,
        kind: args.kind,
        format: args.format,
        interval_ms: args.interval,
        fields: args.fields.clone(),
        start,
        as_of: args.as_of,
        skip_bad_lines: args.skip_bad_lines,
        timings: args.timings,
        ..options
    };

    let mut terminal = Terminal {
        name: String::new(),
        size: 0,
        shown: false,
        json: ctx.json,
    };
    let batch = importing::import_paths(&ctx.store, &args.paths, &options, &mut terminal)
        .map_err(|e| Failure::Refused(e.to_string()))?;
    for note in &batch.skipped {
        eprintln!("note: skipped {}", text::printable_multiline(note));
    }
    if ctx.json {
        output::print_json(&batch.files)?;
    } else if let Some(moved) = &batch.decision {
        // What these files did to the answer a buyer acts on.
        println!("the answer moved: {}", moved.changed.join("; "));
        println!("  {}", moved.standing.sentence);
    }
    let failed = batch.failures();
    if failed > 0 {
        if batch.files.len() > 1 && !ctx.json {
            eprintln!(
                "error: {failed} of {} files not imported; nothing was stored from them",
                batch.files.len()
            );
        }
        return Err(Failure::Reported);
    }
    Ok(())
}

fn describe(result: &FileResult) -> String {
    match result {
        FileResult::NotImported { error, file, .. } => {
            if error.starts_with(file.as_str()) {
                format!("error: {error}")
            } else {
                format!("error: {file}: {error}")
            }
        }
        FileResult::Done(ImportOutcome::AlreadyImported {
            file,
            run_id,
            earlier_file,
            platform,
            matched,
        }) => {
            let how = match (matched, earlier_file) {
                (Duplicate::Bytes, _) => "the same file".to_string(),
                (Duplicate::Content, Some(earlier)) => format!(
                    "the same log as {}, compressed or encoded differently",
                    text::printable(earlier)
                ),
                (Duplicate::Content, None) => {
                    "the same log, compressed or encoded differently".to_string()
                }
            };
            format!(
                "{}: already imported as run {run_id} on {} ({how}); nothing stored",
                text::printable(file),
                text::printable(platform)
            )
        }
        FileResult::Done(ImportOutcome::Imported(r)) => {
            let mut text = format!(
                "{}: {} → run {} ({})\n",
                text::printable(&r.file),
                r.format,
                r.run_id,
                r.kind
            );
            let period = match (r.started_at, r.ended_at) {
                (Some(a), Some(b)) => format!(
                    ", {} → {} ({})",
                    output::time(a),
                    output::time(b),
                    output::duration_ms(b.as_millisecond() - a.as_millisecond())
                ),
                _ => String::new(),
            };
            let interval = r
                .interval_ms
                .map(|ms| format!(", every {ms} ms"))
                .unwrap_or_default();
            text.push_str(&format!(
                "  {} GPU(s), {} samples, {} records{period}{interval}\n",
                r.gpus, r.samples, r.records
            ));
            text.push_str(&format!(
                "  {} gap(s) stored as interruptions, {} line(s) skipped\n",
                r.gaps, r.skipped_lines
            ));
            if let Some(note) = &r.zone_note {
                text.push_str(&format!("  {note}\n"));
            }
            if let Some(replaced) = &r.replaced {
                text.push_str(&format!(
                    "  replaces run {}, the same log read differently then ({})\n",
                    replaced.run_id, replaced.change
                ));
            }
            for line in &r.priced {
                text.push_str(&format!("  {line}\n"));
            }
            for found in &r.found {
                text.push_str(&format!("  found: {found}\n"));
            }
            for w in &r.warnings {
                text.push_str(&format!("  warning: {w}\n"));
            }
            if let Some(t) = &r.timings {
                text.push_str(&timings(t));
            }
            text
        }
    }
}

/// `--start`: an RFC 3339 instant, or a date / date-time in the given zone.
fn parse_start(text: &str, tz: &jiff::tz::TimeZone) -> Result<jiff::Timestamp, String> {
    if let Ok(t) = text.parse::<jiff::Timestamp>() {
        return Ok(t);
    }
    let mut reader = timestamps::TimeReader::new(tz.clone());
    reader
        .parse(text)
        .or_else(|| reader.parse(&format!("{text} 00:00:00")))
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .ok_or_else(|| {
            format!("\"{text}\" is not a date or time (2024-06-01 or 2024-06-01T08:00:00Z)")
        })
}

/// `import --prometheus URL --from T --to T`: the fleet's DCGM history, one
/// run per node.
/// How long a stopped pull may take to end by itself before the process
/// leaves without it.
const PULL_STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

fn pull(ctx: &Context, args: &ImportArgs, url: &str, platform_id: i64, platform: &str) -> Outcome {
    use breakpoint_fleet::api::{Credentials, HttpApi};
    use breakpoint_fleet::pull::{self, Progress, PullRequest};
    use std::sync::atomic::{AtomicBool, Ordering};

    let a = &args.pull;
    let credentials = Credentials::from_sources(
        a.token_env.as_deref(),
        a.token_file.as_deref(),
        a.basic_auth_env.as_deref(),
    )
    .map_err(Failure::Refused)?;
    let api = HttpApi::new(
        url,
        &credentials,
        a.ca_file.as_deref(),
        std::time::Duration::from_millis(u64::from(a.request_timeout)),
    )
    .map_err(Failure::Refused)?;
    let (Some(from), Some(to)) = (a.from, a.to) else {
        return Err(Failure::Refused(
            "--prometheus needs --from and --to".into(),
        ));
    };
    let request = PullRequest {
        from,
        to,
        step_s: (a.step / 1000).max(1),
        selector: a.selector.clone(),
        concurrency: a.concurrency,
        url: api.url().to_string(),
        platform_id,
    };
    // Set before anything is asked, so that a server that never answers is
    // left at a Ctrl-C; what the handler says depends on the kind of pull,
    // decided below.
    let cancel = std::sync::Arc::new(AtomicBool::new(false));
    let summarising = std::sync::Arc::new(AtomicBool::new(false));
    let (flag, mode) = (cancel.clone(), summarising.clone());
    let _ = ctrlc::set_handler(move || {
        if !flag.swap(true, Ordering::Relaxed) {
            let summaries = mode.load(Ordering::Relaxed);
            eprintln!(
                "{}",
                if summaries {
                    "stopping: the nodes summarised so far are kept; run it again for the rest…"
                } else {
                    "stopping: the pull is one transaction and will not be committed…"
                }
            );
            // A request in flight may wait out its timeout, and nothing it
            // brings would be kept: the process does not wait for it. What
            // was not committed is not stored.
            std::thread::spawn(move || {
                std::thread::sleep(PULL_STOP_GRACE);
                eprintln!(
                    "{}",
                    if summaries {
                        "stopped: the node in progress was not stored"
                    } else {
                        "stopped: nothing of this pull was stored"
                    }
                );
                std::process::exit(130);
            });
        }
    });
    let summaries = if a.summaries {
        true
    } else if a.samples {
        false
    } else {
        let nodes = pull::fleet_nodes(&api, &request, &cancel)
            .map_err(|e| Failure::Refused(pull_refusal(&e)))?;
        pull::prefers_summaries(nodes, &request)
    };
    summarising.store(summaries, Ordering::Relaxed);
    let live = std::io::stderr().is_terminal() && !ctx.json;
    let show = |p: Progress| {
        if !live {
            return;
        }
        match p {
            Progress::Nodes(n) => eprintln!("{n} node(s) in range"),
            Progress::Chunk { node, done, of } => eprint!("\r{node}: {done} of {of} chunks   "),
            Progress::Stored { node, samples } => eprintln!("\r{node}: {samples} samples stored"),
            Progress::Summarised {
                node,
                windows,
                drilled,
            } => eprintln!("\r{node}: {windows} windows summarised, {drilled} drilled into"),
        }
    };
    let stopped = |e: pull::PullError| {
        if cancel.load(Ordering::Relaxed) {
            // Stopped by the user: a script hears it (128 + SIGINT).
            eprintln!(
                "{}",
                if summaries {
                    "stopped: the nodes summarised before were kept"
                } else {
                    "stopped: nothing of this pull was stored"
                }
            );
            Failure::Exit(130)
        } else {
            Failure::Refused(pull_refusal(&e))
        }
    };
    if summaries {
        let report = pull::summary::pull_summaries(
            &ctx.store,
            &api,
            &request,
            (a.window / 1000).max(1),
            &cancel,
            &show,
        )
        .map_err(stopped)?;
        return print_summaries(ctx, &report, &request.url, platform);
    }
    let report = pull::pull(&ctx.store, &api, &request, &cancel, &show).map_err(stopped)?;
    if ctx.json {
        return Ok(output::print_json(&report)?);
    }
    let mut t = output::table(&["node", "runs", "GPUs", "samples", ""]);
    for n in &report.nodes {
        t.add_row(vec![
            n.node.clone(),
            n.runs
                .iter()
                .map(|r| format!("#{r}"))
                .collect::<Vec<_>>()
                .join(", "),
            n.gpus.to_string(),
            n.samples.to_string(),
            match (n.already, n.dropped_points) {
                (true, _) => "already imported".into(),
                (false, 0) => String::new(),
                (false, d) => {
                    format!("warning: {d} point(s) outside the asked range or repeated, left out")
                }
            },
        ]);
    }
    Ok(output::print(&format!(
        "pulled {} node(s) of {platform} from {} ({} requests, {} retried)\n{t}\n",
        report.nodes.len(),
        request.url,
        report.requests,
        report.retries
    ))?)
}

/// A pull's refusal in this command's words: a request field by its flag.
fn pull_refusal(e: &breakpoint_fleet::pull::PullError) -> String {
    match e {
        breakpoint_fleet::pull::PullError::Invalid(v) => {
            let flag = match v.field.as_str() {
                "step_s" => "step",
                "window_s" => "window",
                other => other,
            };
            format!("--{flag} {}", v.reason)
        }
        other => other.to_string(),
    }
}

fn print_summaries(
    ctx: &Context,
    report: &breakpoint_fleet::pull::summary::SummaryReport,
    url: &str,
    platform: &str,
) -> Outcome {
    if ctx.json {
        return Ok(output::print_json(report)?);
    }
    let mut t = output::table(&["node", "run", "GPUs", "windows", "drilled into", ""]);
    for n in &report.nodes {
        let drilled: Vec<String> = n
            .drilled
            .iter()
            .map(|d| {
                format!(
                    "{} ({})",
                    d.words(),
                    d.run.map_or("no samples".into(), |r| format!("run #{r}"))
                )
            })
            .collect();
        t.add_row(vec![
            n.node.clone(),
            n.run.map(|r| format!("#{r}")).unwrap_or_default(),
            n.gpus.to_string(),
            n.windows.to_string(),
            drilled.join("\n"),
            if n.already {
                "already imported".into()
            } else {
                String::new()
            },
        ]);
    }
    let share = if report.points_summarised > 0 {
        format!(
            "; {} of {} points stored as samples ({:.1} %)",
            report.samples_stored,
            report.points_summarised,
            100.0 * report.samples_stored as f64 / report.points_summarised as f64
        )
    } else {
        String::new()
    };
    Ok(output::print(&format!(
        "summarised {} node(s) of {platform} from {url} in {}-second windows ({} requests, {} retried{share})\n{t}\n",
        report.nodes.len(),
        report.window_s,
        report.requests,
        report.retries,
    ))?)
}

/// `--timings`: the wall clock by stage, then each thread's processor
/// time by what it did, in milliseconds.
fn timings(t: &ImportTimings) -> String {
    let ms = |d: Duration| format!("{:.0}", d.as_secs_f64() * 1000.0);
    let mut text = format!(
        "  timings: {} ms: setting up {}, reading lines {}, storing {}, committing {}\n",
        ms(t.wall()),
        ms(t.setting_up),
        ms(t.reading),
        ms(t.storing),
        ms(t.committing)
    );
    let (Some(all), Some(here)) = (t.cpu(), t.this_thread_cpu) else {
        text.push_str("  processor time: this system keeps no clock of each thread's\n");
        return text;
    };
    let rows = &t.rows;
    let rest = here.saturating_sub(rows.cutting_cpu + rows.reading_here_cpu + rows.finishing_cpu);
    text.push_str(&format!(
        "  processor time: {} ms on all threads: this thread {} (cutting the file into blocks {}, \
         reading rows {}, finishing rows in order {}, the rest {}); {} row worker(s) {}; \
         SHA-256 {}; encoding samples {}\n",
        ms(all),
        ms(here),
        ms(rows.cutting_cpu),
        ms(rows.reading_here_cpu),
        ms(rows.finishing_cpu),
        ms(rest),
        rows.workers,
        ms(rows.workers_cpu),
        ms(t.hashing_cpu.unwrap_or_default()),
        ms(t.encoding_cpu.unwrap_or_default()),
    ));
    text
}
