//! Where a bundle is unpacked or assembled: a folder of its own in the
//! system's temporary directory, named for the process that made it. A
//! folder is removed when its work ends; one left by a process that was
//! killed (Ctrl-C mid-import, kill -9, a crash) is removed by the next
//! bundle command, once no process of that id runs.

use std::path::Path;

const PREFIX: &str = "breakpoint-bundle-";

/// A fresh scratch folder, after sweeping those left behind.
pub(super) fn folder() -> std::io::Result<tempfile::TempDir> {
    sweep(&std::env::temp_dir());
    tempfile::Builder::new()
        .prefix(&format!("{PREFIX}{}-", std::process::id()))
        .tempdir()
}

/// Remove the scratch folders of processes that no longer run. Only where
/// the system says which processes run (`/proc`); elsewhere nothing is
/// touched. Failures are left for the next sweep.
fn sweep(temp: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let running = Path::new("/proc").join(pid.to_string()).exists();
        // Our own folders are never swept: they belong to work under way.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if !running && pid != std::process::id() && is_dir {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn folders_of_dead_processes_are_swept_and_the_living_kept() {
        let temp = tempfile::tempdir().unwrap();
        // No process runs with an id above the kernel's limit.
        let dead = temp.path().join(format!("{PREFIX}4194399-abc"));
        let alive = temp
            .path()
            .join(format!("{PREFIX}{}-def", std::process::id()));
        let other = temp.path().join("someone-else-123");
        for d in [&dead, &alive, &other] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("workspace.sqlite"), b"x").unwrap();
        }
        sweep(temp.path());
        assert!(!dead.exists());
        assert!(alive.exists());
        assert!(other.exists());
    }
}
