//! The windows of a summary run: per GPU, what a time-series database
//! computed over each window of its samples (model's `GpuWindow`).

use rusqlite::params;

use super::Store;
use crate::error::{Error, Result};
use crate::samples::windows::GpuWindow;

impl Store {
    pub fn add_windows(&self, run_id: i64, windows: &[GpuWindow]) -> Result<()> {
        let mut stmt = self.conn().prepare_cached(
            "INSERT INTO gpu_windows (run_id, gpu, start_ms, end_ms, figures)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for w in windows {
            let figures = serde_json::to_string(w)
                .map_err(|e| Error::Io(std::io::Error::other(e.to_string())))?;
            stmt.execute(params![run_id, w.gpu, w.start_ms, w.end_ms, figures])?;
        }
        Ok(())
    }

    /// A run's windows, GPU by GPU, each in time order; none for a run of
    /// samples.
    pub fn windows(&self, run_id: i64) -> Result<Vec<GpuWindow>> {
        let mut stmt = self.conn().prepare_cached(
            "SELECT figures FROM gpu_windows WHERE run_id = ?1 ORDER BY gpu, start_ms",
        )?;
        let rows = stmt.query_map([run_id], |r| r.get::<_, String>(0))?;
        let mut out = Vec::new();
        for figures in rows {
            let figures = figures?;
            out.push(serde_json::from_str(&figures).map_err(|e| {
                Error::Io(std::io::Error::other(format!(
                    "run {run_id}: a stored window cannot be read: {e}"
                )))
            })?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{NewRun, Platform, PlatformKind, RunKind, SourceKind};

    #[test]
    fn windows_are_kept_per_run_and_go_with_it() {
        let store = Store::open_in_memory().unwrap();
        let p = store
            .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
            .unwrap();
        let run = store
            .create_run(NewRun::new(p.id, RunKind::Sustain, SourceKind::Import))
            .unwrap();
        let window = |gpu, start_ms| GpuWindow {
            gpu,
            start_ms,
            end_ms: start_ms + 3_600_000,
            points: 240,
            busy: 200,
            busy_power_mw: Some(600_000),
            ..GpuWindow::default()
        };
        let written = [window(1, 0), window(0, 3_600_000), window(0, 0)];
        store.add_windows(run.id, &written).unwrap();
        let read = store.windows(run.id).unwrap();
        assert_eq!(read, [window(0, 0), window(0, 3_600_000), window(1, 0)]);
        store.delete_run(run.id).unwrap();
        assert!(store.windows(run.id).unwrap().is_empty());
    }
}
