//! The app's one managed state: the database, and the long jobs running
//! off the UI thread with their cancel flags.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use breakpoint_api::Store;
use breakpoint_report::Lang;

use crate::error::{AppError, AppResult, ErrorKind};

pub struct AppState {
    pub db_path: PathBuf,
    store: Mutex<Store>,
    jobs: Mutex<HashMap<u64, Arc<AtomicBool>>>,
    next_job: AtomicU64,
    pub language: Mutex<String>,
    /// A recorded GPU trace the probe replays instead of reading NVML
    /// (`BREAKPOINT_PROBE_TRACE`), for machines without a GPU.
    pub probe_trace: Option<PathBuf>,
    /// The PDF this session exported last: the only file `open_report` opens.
    last_report: Mutex<Option<PathBuf>>,
    /// The probe job running (sampling or a workload): one at a time, so
    /// the live chart shows one session.
    probe_job: Mutex<Option<u64>>,
}

impl AppState {
    /// The app's language code, "en" or "zh" (English if the lock was
    /// poisoned: a label in the wrong language is not worth a failure).
    pub fn language(&self) -> String {
        self.language
            .lock()
            .map(|l| l.clone())
            .unwrap_or_else(|_| "en".into())
    }

    /// The app's language, for what the report crate draws.
    pub fn lang(&self) -> Lang {
        self.language().parse().unwrap_or(Lang::En)
    }

    /// The database the CLI uses too (`BREAKPOINT_DB`, else the OS data dir),
    /// in the OS locale's language.
    pub fn open() -> AppResult<AppState> {
        let db_path = match std::env::var_os("BREAKPOINT_DB") {
            Some(p) => PathBuf::from(p),
            None => breakpoint_api::workspace::default_path().ok_or_else(|| {
                AppError::new(ErrorKind::Database, "no data directory for the database")
            })?,
        };
        let language = std::env::var("LANG")
            .ok()
            .filter(|l| l.starts_with("zh"))
            .map_or("en", |_| "zh");
        let mut state = AppState::open_at(db_path, language)?;
        state.probe_trace = std::env::var_os("BREAKPOINT_PROBE_TRACE").map(PathBuf::from);
        Ok(state)
    }

    /// A state over a given database file (created if missing).
    pub fn open_at(db_path: PathBuf, language: &str) -> AppResult<AppState> {
        if let Some(dir) = db_path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let store = Store::open(&db_path)?;
        Ok(AppState {
            db_path,
            store: Mutex::new(store),
            jobs: Mutex::new(HashMap::new()),
            next_job: AtomicU64::new(1),
            language: Mutex::new(language.to_string()),
            probe_trace: None,
            last_report: Mutex::new(None),
            probe_job: Mutex::new(None),
        })
    }

    pub fn set_last_report(&self, path: PathBuf) {
        if let Ok(mut last) = self.last_report.lock() {
            *last = Some(path);
        }
    }

    pub fn last_report(&self) -> Option<PathBuf> {
        self.last_report.lock().ok().and_then(|last| last.clone())
    }

    /// The shared connection, for short commands.
    pub fn store(&self) -> AppResult<MutexGuard<'_, Store>> {
        self.store
            .lock()
            .map_err(|_| AppError::new(ErrorKind::Internal, "the database lock was poisoned"))
    }

    /// A connection of its own, for a long job that must not hold the
    /// shared one (WAL lets both work at once).
    pub fn own_store(&self) -> AppResult<Store> {
        Ok(Store::open(&self.db_path)?)
    }

    pub fn start_job(&self) -> (u64, Arc<AtomicBool>) {
        let id = self.next_job.fetch_add(1, Ordering::Relaxed);
        let flag = Arc::new(AtomicBool::new(false));
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.insert(id, flag.clone());
        }
        (id, flag)
    }

    pub fn end_job(&self, id: u64) {
        if let Ok(mut jobs) = self.jobs.lock() {
            jobs.remove(&id);
        }
        if let Ok(mut probe) = self.probe_job.lock()
            && *probe == Some(id)
        {
            *probe = None;
        }
    }

    /// Start the probe's job, unless one is running already.
    pub fn start_probe_job(&self) -> AppResult<(u64, Arc<AtomicBool>)> {
        let mut probe = self
            .probe_job
            .lock()
            .map_err(|_| AppError::new(ErrorKind::Internal, "the probe lock was poisoned"))?;
        if let Some(running) = *probe {
            return Err(AppError::new(
                ErrorKind::Conflict,
                format!("the probe is already running (job {running}); stop it first"),
            ));
        }
        let (id, flag) = self.start_job();
        *probe = Some(id);
        Ok((id, flag))
    }

    pub fn cancel(&self, id: u64) -> bool {
        self.jobs
            .lock()
            .ok()
            .and_then(|jobs| jobs.get(&id).cloned())
            .map(|flag| flag.store(true, Ordering::Relaxed))
            .is_some()
    }
}
