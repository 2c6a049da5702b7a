//! A file copied up through the platform's own tool, timed.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use breakpoint_formats::parsers::storage_log::UploadFigures;

use super::{Disk, Scratch, round3, write_file};

/// Time the upload of a file of `bytes` through the user's own command
/// (`{file}` in it becomes the file's path), as the platform's tool copies
/// data in; the file is removed afterwards. A command that runs past
/// `limit` is stopped and the upload counts as failed.
pub fn upload(
    command: &str,
    local: &Path,
    bytes: u64,
    limit: Duration,
    stop: &AtomicBool,
) -> Result<UploadFigures, String> {
    if !command.contains("{file}") {
        return Err(format!(
            "--upload: \"{command}\" does not say where the file goes: write {{file}} for it"
        ));
    }
    let scratch = Scratch::new(local)?;
    let file = scratch.path("upload.bin");
    write_file(&Disk, &file, bytes, 0x517C_C1B7)
        .map_err(|e| format!("{}: cannot write the file to upload: {e}", local.display()))?;
    let quoted = format!("'{}'", file.display().to_string().replace('\'', r"'\''"));
    let started = Instant::now();
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command.replace("{file}", &quoted))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run the upload command: {e}"))?;
    let mut figures = UploadFigures {
        t: jiff::Timestamp::now().as_millisecond(),
        via: command.to_string(),
        bytes,
        seconds: None,
        error: None,
    };
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let seconds = started.elapsed().as_secs_f64();
                if status.success() {
                    figures.seconds = Some(round3(seconds));
                } else {
                    let mut said = String::new();
                    if let Some(mut e) = child.stderr.take() {
                        let _ = e.read_to_string(&mut said);
                    }
                    figures.error = Some(format!(
                        "{status}: {}",
                        breakpoint_core::text::printable_excerpt(said.trim(), 200)
                    ));
                }
                break;
            }
            Ok(None) if stop.load(Ordering::Relaxed) || started.elapsed() >= limit => {
                let _ = child.kill();
                let _ = child.wait();
                figures.error = Some(if stop.load(Ordering::Relaxed) {
                    "stopped".into()
                } else {
                    format!("still running after {} s", limit.as_secs())
                });
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("the upload command: {e}")),
        }
    }
    Ok(figures)
}
