//! The ledger: every instance a campaign starts, written down before
//! anything else happens with it, beside the database. A campaign that
//! crashes, is killed or loses its network leaves the ledger saying which
//! instances may still be running and how to stop them; `campaign status`
//! lists them and `campaign cleanup` tears them down.
//!
//! One JSON object per line, appended and synced to disk before the
//! campaign goes on; replayed to find what is still outstanding.

use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Entry {
    /// A campaign's name, taken before any of its instances is named.
    Campaign { campaign: String, at: Timestamp },
    /// About to run the launch command for this instance name.
    Launching {
        name: String,
        campaign: String,
        at: Timestamp,
    },
    /// The launch gave this id; this command tears it down.
    Launched {
        name: String,
        id: String,
        teardown: String,
        /// The recipe's pattern for the platform's "no such instance".
        #[serde(default, skip_serializing_if = "Option::is_none")]
        gone: Option<String>,
        at: Timestamp,
    },
    /// About to run the teardown command: a process killed while it runs
    /// leaves the ledger saying so, and `cleanup` asks the platform again.
    TearingDown {
        name: String,
        id: String,
        at: Timestamp,
    },
    /// The teardown command succeeded.
    TornDown {
        name: String,
        id: String,
        at: Timestamp,
    },
    /// The platform says the instance no longer exists (its teardown ran
    /// before a crash, or someone stopped it by hand): gone, and what the
    /// platform said kept.
    Gone {
        name: String,
        id: String,
        said: String,
        at: Timestamp,
    },
    /// The user checked an instance the ledger could not identify (a launch
    /// that printed no id) and says it is gone.
    Forgotten { name: String, at: Timestamp },
}

/// An instance the ledger does not know to be gone.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outstanding {
    pub name: String,
    pub campaign: String,
    /// `None`: the launch printed no id the recipe could read, so nothing
    /// can tear it down by id; check the platform's console for the name.
    pub id: Option<String>,
    pub teardown: Option<String>,
    /// The recipe's pattern for the platform's "no such instance".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gone: Option<String>,
    pub since: Timestamp,
}

/// The ledger read from its first line to its last.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Replay {
    /// Every instance not known to be gone, oldest first.
    pub outstanding: Vec<Outstanding>,
    /// Lines (counted from 1) that could not be read: cut off by a crash,
    /// or changed by hand. They are reported, never silently passed over.
    pub unreadable: Vec<usize>,
}

/// Held by a running campaign for as long as it runs (a shared lock on the
/// ledger's lock file, so campaigns run side by side): `cleanup` must not
/// tear down instances a campaign is still using. The lock goes with the
/// process, so a campaign that crashed holds nothing.
#[derive(Debug)]
pub struct Running {
    _file: std::fs::File,
}

pub struct Ledger {
    path: PathBuf,
    /// Appends from the attempts' threads, one line at a time (the file
    /// lock serialises processes; this, the threads of one).
    lock: Mutex<()>,
}

impl Ledger {
    /// The ledger of the database at `db`: `<db>.campaigns.jsonl`.
    pub fn beside(db: &Path) -> Ledger {
        let mut name = db.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".campaigns.jsonl");
        Ledger::at(db.with_file_name(name))
    }

    pub fn at(path: PathBuf) -> Ledger {
        Ledger {
            path,
            lock: Mutex::new(()),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lock file beside the ledger (`<db>.campaigns.lock`).
    pub fn lock_path(&self) -> PathBuf {
        self.path.with_extension("lock")
    }

    fn lock_file(&self) -> std::io::Result<std::fs::File> {
        // writes: the ledger's lock file, never written to, only locked.
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.lock_path())
    }

    /// Mark a campaign as running until the guard is dropped.
    pub fn running(&self) -> std::io::Result<Running> {
        let file = self.lock_file()?;
        file.lock_shared()?;
        Ok(Running { _file: file })
    }

    /// Run `f` only while no campaign is running, holding them off
    /// meanwhile; `None` when one is running.
    pub fn while_idle<T>(&self, f: impl FnOnce() -> T) -> std::io::Result<Option<T>> {
        let file = self.lock_file()?;
        match file.try_lock() {
            Ok(()) => Ok(Some(f())),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Append one entry and sync it to disk before returning: only then may
    /// the campaign act on it.
    pub fn append(&self, entry: &Entry) -> std::io::Result<()> {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut file = self.locked()?;
        Self::append_locked(&mut file, entry)
    }

    /// The ledger file, open for appending under an exclusive lock that
    /// other processes' campaigns wait for (released when it is dropped).
    fn locked(&self) -> std::io::Result<std::fs::File> {
        // writes: the ledger is the workspace's own file, appended to only.
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&self.path)?;
        file.lock()?;
        Ok(file)
    }

    fn append_locked(file: &mut std::fs::File, entry: &Entry) -> std::io::Result<()> {
        let mut line = serde_json::to_string(entry).map_err(std::io::Error::other)?;
        line.push('\n');
        // A line a crash cut off must not swallow this one.
        if ends_mid_line(file)? {
            line.insert(0, '\n');
        }
        file.write_all(line.as_bytes())?;
        file.sync_data()
    }

    /// A campaign name no campaign in this ledger has used, written down
    /// (its first line) before it is handed out: two campaigns started in
    /// the same second, in one process or two, never share instance names.
    pub fn allocate_campaign(&self, wanted: &str) -> std::io::Result<String> {
        let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let mut file = self.locked()?;
        let used = self.campaigns()?;
        let name = std::iter::once(wanted.to_string())
            .chain((2..).map(|n| format!("{wanted}-{n}")))
            .find(|n| !used.contains(n))
            .unwrap_or_else(|| wanted.to_string());
        Self::append_locked(
            &mut file,
            &Entry::Campaign {
                campaign: name.clone(),
                at: Timestamp::now(),
            },
        )?;
        Ok(name)
    }

    /// Every campaign name the ledger has seen.
    fn campaigns(&self) -> std::io::Result<Vec<String>> {
        Ok(self
            .entries()?
            .0
            .into_iter()
            .filter_map(|e| match e {
                Entry::Campaign { campaign, .. } | Entry::Launching { campaign, .. } => {
                    Some(campaign)
                }
                _ => None,
            })
            .collect())
    }

    /// The entries, in order, and the numbers of the lines that could not
    /// be read (a line cut off by a crash mid-write: the entry before it
    /// stands).
    fn entries(&self) -> std::io::Result<(Vec<Entry>, Vec<usize>)> {
        let file = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((Vec::new(), Vec::new()));
            }
            Err(e) => return Err(e),
        };
        let mut out = Vec::new();
        let mut unreadable = Vec::new();
        // Bytes, not text: one damaged byte must not hide the lines after it.
        for (i, line) in BufReader::new(file).split(b'\n').enumerate() {
            let line = line?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Entry>(&line) {
                Ok(entry) => out.push(entry),
                Err(_) => unreadable.push(i + 1),
            }
        }
        Ok((out, unreadable))
    }

    /// Every instance not known to be gone, oldest first.
    pub fn outstanding(&self) -> std::io::Result<Vec<Outstanding>> {
        Ok(self.replay()?.outstanding)
    }

    /// The ledger replayed: what is outstanding, and what could not be
    /// read.
    pub fn replay(&self) -> std::io::Result<Replay> {
        let (entries, unreadable) = self.entries()?;
        let mut open: Vec<Outstanding> = Vec::new();
        for entry in entries {
            match entry {
                Entry::Launching { name, campaign, at } => open.push(Outstanding {
                    name,
                    campaign,
                    id: None,
                    teardown: None,
                    gone: None,
                    since: at,
                }),
                Entry::Launched {
                    name,
                    id,
                    teardown,
                    gone,
                    at,
                } => match open.iter_mut().rev().find(|o| o.name == name) {
                    Some(o) => {
                        o.id = Some(id);
                        o.teardown = Some(teardown);
                        o.gone = gone;
                    }
                    // Its `launching` line is lost (unreadable, or cut
                    // off): the id and the teardown are right here, so the
                    // instance is outstanding all the same.
                    None => open.push(Outstanding {
                        campaign: name.rsplit_once('-').map_or("", |(c, _)| c).to_string(),
                        name,
                        id: Some(id),
                        teardown: Some(teardown),
                        gone,
                        since: at,
                    }),
                },
                // Only the instance of that name with that id: a name
                // reused by an older build's campaign is another instance.
                Entry::TornDown { name, id, .. } | Entry::Gone { name, id, .. } => {
                    open.retain(|o| !(o.name == name && o.id.as_deref().is_none_or(|i| i == id)));
                }
                Entry::Forgotten { name, .. } => {
                    open.retain(|o| !(o.name == name && o.id.is_none()));
                }
                Entry::Campaign { .. } | Entry::TearingDown { .. } => {}
            }
        }
        Ok(Replay {
            outstanding: open,
            unreadable,
        })
    }
}

fn ends_mid_line(file: &mut std::fs::File) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn what_is_launched_stays_until_it_is_torn_down() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::beside(&dir.path().join("b.db"));
        assert_eq!(ledger.path().file_name().unwrap(), "b.db.campaigns.jsonl");
        assert!(ledger.outstanding().unwrap().is_empty());
        let at = Timestamp::UNIX_EPOCH;
        let launching = |name: &str| Entry::Launching {
            name: name.into(),
            campaign: "c1".into(),
            at,
        };
        ledger.append(&launching("bp-1")).unwrap();
        ledger.append(&launching("bp-2")).unwrap();
        ledger
            .append(&Entry::Launched {
                name: "bp-1".into(),
                id: "i-1".into(),
                teardown: "cloud delete i-1".into(),
                gone: None,
                at,
            })
            .unwrap();
        let open = ledger.outstanding().unwrap();
        assert_eq!(open.len(), 2);
        assert_eq!(open[0].id.as_deref(), Some("i-1"));
        assert_eq!(open[1].id, None);
        ledger
            .append(&Entry::TornDown {
                name: "bp-1".into(),
                id: "i-1".into(),
                at,
            })
            .unwrap();
        // A crash mid-write leaves half a line: passed over.
        std::fs::OpenOptions::new()
            .append(true)
            .open(ledger.path())
            .unwrap()
            .write_all(b"{\"event\":\"torn_do")
            .unwrap();
        let open = ledger.outstanding().unwrap();
        assert_eq!(
            open.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
            vec!["bp-2"]
        );
        // The next entry still lands on a line of its own.
        ledger
            .append(&Entry::Forgotten {
                name: "bp-2".into(),
                at,
            })
            .unwrap();
        assert!(ledger.outstanding().unwrap().is_empty());
    }

    #[test]
    fn a_launch_whose_first_line_is_lost_is_outstanding_and_the_loss_reported() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::beside(&dir.path().join("b.db"));
        std::fs::write(
            ledger.path(),
            concat!(
                "{\"event\":\"launching\",\"name\":\"c1-1\",\"camp\n",
                "{\"event\":\"launched\",\"name\":\"c1-1\",\"id\":\"i-9\",\"teardown\":\"cloud rm i-9\",\"at\":\"2026-12-01T00:00:00Z\"}\n",
                "\u{ff}\u{fe} not json\n",
            ),
        )
        .unwrap();
        let replay = ledger.replay().unwrap();
        assert_eq!(replay.unreadable, [1, 3]);
        let [o] = replay.outstanding.as_slice() else {
            panic!("{replay:?}")
        };
        assert_eq!(
            (o.name.as_str(), o.campaign.as_str(), o.id.as_deref()),
            ("c1-1", "c1", Some("i-9"))
        );
        assert_eq!(o.teardown.as_deref(), Some("cloud rm i-9"));
    }

    #[test]
    fn cleanup_waits_for_no_running_campaign() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::beside(&dir.path().join("b.db"));
        let other = Ledger::beside(&dir.path().join("b.db"));
        assert_eq!(ledger.while_idle(|| 1).unwrap(), Some(1));
        let running = ledger.running().unwrap();
        // Campaigns run side by side; cleanup waits for them all.
        let second = other.running().unwrap();
        assert_eq!(other.while_idle(|| 1).unwrap(), None);
        drop(running);
        assert_eq!(other.while_idle(|| 1).unwrap(), None);
        drop(second);
        assert_eq!(other.while_idle(|| 2).unwrap(), Some(2));
    }
}
