//! Cleanup after a crash or kill -9: what the ledger still holds is torn
//! down, an instance is marked gone only on the platform's own answer about
//! it, and a running campaign's instances are left alone.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use breakpoint_campaign::cleanup;
use breakpoint_campaign::engine::Ending;
use breakpoint_campaign::ledger::Ledger;
use breakpoint_campaign::shell::SystemShell;
use breakpoint_core::domain::LoadScenario;

use crate::{Cloud, fakecloud, request};

#[test]
fn cleanup_tears_down_what_a_killed_campaign_left() {
    let cloud = Cloud::new(&[]);
    // What a campaign killed after launching writes: launching, launched.
    let out = std::process::Command::new(fakecloud())
        .args([
            "launch", "--image", "x", "--type", "a100", "--name", "bp-k-1",
        ])
        .env("FAKECLOUD_DIR", cloud.dir.path().join("cloud"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("instance i-1 created"));
    let at = jiff::Timestamp::now();
    use breakpoint_campaign::ledger::Entry;
    cloud
        .ledger
        .append(&Entry::Launching {
            name: "bp-k-1".into(),
            campaign: "bp-k".into(),
            at,
        })
        .unwrap();
    let teardown = format!(
        "FAKECLOUD_DIR='{}' '{}' delete i-1",
        cloud.dir.path().join("cloud").display(),
        fakecloud().display()
    );
    cloud
        .ledger
        .append(&Entry::Launched {
            name: "bp-k-1".into(),
            id: "i-1".into(),
            teardown,
            gone: None,
            at,
        })
        .unwrap();
    assert_eq!(cloud.running(), vec!["i-1".to_string()]);
    let cleaned = cleanup(&cloud.ledger, &SystemShell, Duration::from_secs(5))
        .unwrap()
        .instances;
    assert_eq!(cleaned[0].torn_down, Some(true));
    assert!(cloud.running().is_empty());
    assert!(cloud.ledger.outstanding().unwrap().is_empty());
}

/// A ledger beside a database in `dir` holding instances of `campaign`
/// launched (name, id, teardown, the recipe's gone pattern) and not torn
/// down, as a campaign killed after launching leaves it.
fn launched(
    dir: &std::path::Path,
    campaign: &str,
    instances: &[(&str, &str, &str, Option<&str>)],
) -> Ledger {
    use breakpoint_campaign::ledger::Entry;
    let ledger = Ledger::beside(&dir.join("b.db"));
    let at = jiff::Timestamp::now();
    for (name, id, teardown, gone) in instances {
        ledger
            .append(&Entry::Launching {
                name: (*name).into(),
                campaign: campaign.into(),
                at,
            })
            .unwrap();
        ledger
            .append(&Entry::Launched {
                name: (*name).into(),
                id: (*id).into(),
                teardown: (*teardown).into(),
                gone: gone.map(String::from),
                at,
            })
            .unwrap();
    }
    ledger
}

/// What cleanup did to each instance: (name, torn down).
fn verdicts(cleaned: &[breakpoint_campaign::Cleaned]) -> Vec<(&str, Option<bool>)> {
    cleaned
        .iter()
        .map(|c| (c.instance.name.as_str(), c.torn_down))
        .collect()
}

#[test]
fn cleanup_takes_the_platform_at_its_word_that_an_instance_is_gone() {
    use breakpoint_campaign::ledger::Entry;
    let dir = tempfile::tempdir().unwrap();
    // A teardown that ran before a kill -9, and one still to do.
    let ledger = launched(
        dir.path(),
        "bp-x",
        &[
            (
                "bp-x-1",
                "i-1",
                "echo 'error: no such instance i-1' >&2; exit 4",
                None,
            ),
            (
                "bp-x-2",
                "i-2",
                "echo 'InvalidInstanceID.NotFound' >&2; exit 255",
                None,
            ),
            (
                "bp-x-3",
                "i-3",
                "echo 'error: the API is busy' >&2; exit 1",
                None,
            ),
        ],
    );
    let at = jiff::Timestamp::now();
    ledger
        .append(&Entry::TearingDown {
            name: "bp-x-1".into(),
            id: "i-1".into(),
            at,
        })
        .unwrap();
    let cleaned = cleanup(&ledger, &SystemShell, Duration::from_secs(5))
        .unwrap()
        .instances;
    assert_eq!(
        verdicts(&cleaned),
        vec![
            ("bp-x-1", Some(true)),
            ("bp-x-2", Some(true)),
            ("bp-x-3", Some(false))
        ]
    );
    assert!(
        cleaned[0]
            .message
            .as_deref()
            .unwrap()
            .contains("already gone: the platform says"),
        "{:?}",
        cleaned[0].message
    );
    // Only the busy one stays outstanding; the ledger keeps what was said.
    let open = ledger.outstanding().unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].name, "bp-x-3");
    let text = std::fs::read_to_string(ledger.path()).unwrap();
    assert!(text.contains("\"event\":\"gone\"") && text.contains("no such instance i-1"));
}

/// Teardowns that fail for reasons other than the instance being gone:
/// the tool missing, credentials refused. The instances stay outstanding;
/// only the recipe's own `gone` answer (or the cloud's code for an unknown
/// instance id) marks one gone.
#[test]
fn cleanup_marks_gone_only_on_the_platforms_answer_about_that_instance() {
    let dir = tempfile::tempdir().unwrap();
    let recipes_gone = Some("E042 unknown machine");
    let ledger = launched(
        dir.path(),
        "bp-y",
        &[
            ("bp-y-1", "i-1", "fakecli delete i-1", None),
            (
                "bp-y-2",
                "i-2",
                "echo 'ERROR: InvalidAccessKeyId.NotFound: Specified access key is not found.' >&2; exit 1",
                None,
            ),
            (
                "bp-y-3",
                "i-3",
                "echo 'E042 unknown machine' >&2; exit 3",
                recipes_gone,
            ),
            (
                "bp-y-4",
                "i-4",
                "echo 'not found' >&2; exit 3",
                recipes_gone,
            ),
        ],
    );
    let cleaned = cleanup(&ledger, &SystemShell, Duration::from_secs(5))
        .unwrap()
        .instances;
    assert_eq!(
        verdicts(&cleaned),
        vec![
            ("bp-y-1", Some(false)),
            ("bp-y-2", Some(false)),
            ("bp-y-3", Some(true)),
            ("bp-y-4", Some(false)),
        ]
    );
    let open: Vec<String> = ledger
        .outstanding()
        .unwrap()
        .into_iter()
        .map(|o| o.name)
        .collect();
    assert_eq!(open, ["bp-y-1", "bp-y-2", "bp-y-4"]);
}

/// Cleanup while a campaign runs would tear down the instances it is
/// timing (and the campaign would record them as failed starts): refused.
#[test]
fn cleanup_leaves_a_running_campaign_alone() {
    let cloud = Cloud::new(&[("FAKECLOUD_SLOW", "1500")]);
    let ledger = Ledger::beside(&cloud.dir.path().join("b.db"));
    let instances = cloud.dir.path().join("cloud");
    let running_now = move || {
        std::fs::read_dir(&instances).map_or(0, |d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("i-"))
            })
            .count()
        })
    };
    // Cleanup from another thread (as from another terminal) once the
    // campaign's instance exists.
    let other = std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while running_now() == 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        let answer = cleanup(&ledger, &SystemShell, Duration::from_secs(5)).map(|c| c.instances);
        (answer, running_now())
    });
    let outcome = cloud.campaign(&request(LoadScenario::Peak, 1), &AtomicBool::new(false));
    let (answer, left) = other.join().unwrap();
    let refused = answer.unwrap_err();
    assert!(
        refused.to_string().contains("a campaign is running"),
        "{refused}"
    );
    assert_eq!(left, 1, "cleanup tore down a running instance");
    assert_eq!(
        outcome.records[0].ending,
        Ending::Ok,
        "{:?}",
        outcome.records[0]
    );
    assert!(cloud.running().is_empty());
    let done = cleanup(&cloud.ledger, &SystemShell, Duration::from_secs(5)).unwrap();
    assert!(done.instances.is_empty());
}
