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
    pub since: Timestamp,
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
            .into_iter()
            .filter_map(|e| match e {
                Entry::Campaign { campaign, .. } | Entry::Launching { campaign, .. } => {
                    Some(campaign)
                }
                _ => None,
            })
            .collect())
    }

    /// The entries, in order; a line cut off by a crash mid-write is passed
    /// over (the entry before it stands).
    fn entries(&self) -> std::io::Result<Vec<Entry>> {
        let file = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut out = Vec::new();
        for line in BufReader::new(file).lines() {
            if let Ok(entry) = serde_json::from_str::<Entry>(&line?) {
                out.push(entry);
            }
        }
        Ok(out)
    }

    /// Every instance not known to be gone, oldest first. A line cut off by
    /// a crash mid-write is passed over (the entry before it stands).
    pub fn outstanding(&self) -> std::io::Result<Vec<Outstanding>> {
        let mut open: Vec<Outstanding> = Vec::new();
        for entry in self.entries()? {
            match entry {
                Entry::Launching { name, campaign, at } => open.push(Outstanding {
                    name,
                    campaign,
                    id: None,
                    teardown: None,
                    since: at,
                }),
                Entry::Launched {
                    name, id, teardown, ..
                } => {
                    if let Some(o) = open.iter_mut().rev().find(|o| o.name == name) {
                        o.id = Some(id);
                        o.teardown = Some(teardown);
                    }
                }
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
        Ok(open)
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
}
