//! The gathering of a platform's evidence: caches, summaries, races.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::domain::{
    ImageState, LoadScenario, NewRun, PlatformKind, RunKind, SourceKind, StartupAttempt,
    StartupOutcome,
};
use crate::metrics::catalog::keys;

fn startup_run(store: &Store, platform_id: i64, failed: bool) -> i64 {
    let run = store
        .create_run(NewRun::new(
            platform_id,
            RunKind::Startup,
            SourceKind::Import,
        ))
        .unwrap();
    let at = jiff::Timestamp::from_second(1_700_000_000).unwrap();
    let attempt = StartupAttempt {
        scenario: LoadScenario::Baseline,
        image: ImageState::Warm,
        submitted_at: at,
        provisioned_at: None,
        image_ready_at: None,
        first_compute_at: (!failed).then(|| at + jiff::SignedDuration::from_secs(5)),
        outcome: if failed {
            StartupOutcome::Failed
        } else {
            StartupOutcome::Ok
        },
    };
    store.add_startup_attempts(run.id, &[attempt]).unwrap();
    run.id
}

/// The race of `rank` against `runs rm` + `import`, played in order: the
/// figures of a run deleted while they were computed must not land on
/// the run imported next.
#[test]
fn figures_of_a_run_deleted_mid_ranking_are_filed_under_no_other_run() {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    let failing = startup_run(&store, p.id, true);
    let mut replacement = None;
    let seen = gather_then(&store, |store| {
        store.delete_run(failing).unwrap();
        replacement = Some(startup_run(store, p.id, false));
    })
    .unwrap();
    // What was ranked is the view taken before the delete…
    assert_eq!(seen[0].value(keys::STARTUP_FAILURE_RATE_PCT), Some(100.0));
    let replacement = replacement.unwrap();
    assert_ne!(
        replacement, failing,
        "a deleted run's id was handed out again"
    );
    // …and nothing of it was cached for the run that took its place.
    assert_eq!(
        store.cached_metrics(replacement, ENGINE_VERSION).unwrap(),
        None
    );
    let now = platform_evidence(&store).unwrap();
    assert_eq!(now[0].value(keys::STARTUP_FAILURE_RATE_PCT), Some(0.0));
    assert_eq!(
        now[0].metrics[keys::STARTUP_FAILURE_RATE_PCT].runs[0].run_id,
        replacement
    );
}

#[test]
fn figures_are_not_cached_for_a_run_that_no_longer_exists() {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    let run = startup_run(&store, p.id, true);
    let created = store.run(run).unwrap().created_at.as_millisecond();
    store.delete_run(run).unwrap();
    // Before the guard this failed the whole ranking with "FOREIGN KEY
    // constraint failed".
    assert!(
        !store
            .cache_metrics(run, created, ENGINE_VERSION, "[]")
            .unwrap()
    );
}

/// The evidence a ranking reads from the summaries: the whole
/// evidence less each metric's runs and details.
fn without_sources(mut evidence: PlatformEvidence) -> PlatformEvidence {
    for e in evidence.metrics.values_mut() {
        e.runs.clear();
        e.details.clear();
        e.worst.clear();
        e.pooled = None;
    }
    evidence
}

#[test]
fn a_summary_reads_back_as_the_evidence_without_its_sources() {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    startup_run(&store, p.id, false);
    startup_run(&store, p.id, true);
    store
        .add_claim(
            &crate::domain::Claim::new(
                p.id,
                "availability",
                Some(99.5),
                Some("%".into()),
                None,
                "SLA",
            )
            .unwrap(),
        )
        .unwrap();
    // Gathered anew: kept whole and as a summary.
    let whole = platform_evidence(&store).unwrap().remove(0);
    assert!(whole.metrics.len() > 1 && !whole.claims.is_empty());
    let mut read = store
        .cached_summaries_all(cache::SUMMARY_KEY, cache::decode_summary)
        .unwrap();
    let from_summary = read
        .remove(&p.id)
        .unwrap()
        .into_evidence(whole.platform.clone());
    assert_eq!(from_summary, without_sources(whole.clone()));
    // Bytes that are not a summary are no summary (and no error).
    assert!(cache::decode_summary(&[0xff; 3]).is_none());
}

#[test]
fn a_summary_of_another_form_is_left_alone_and_its_own_written_beside_the_whole() {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    startup_run(&store, p.id, false);
    let rank_table =
        |store: &Store| platform_evidence_in(store, &TimeWindow::default(), Sources::None).unwrap();
    // Gathered anew (with its sources), then read from its summary.
    let first: Vec<PlatformEvidence> = rank_table(&store)
        .into_iter()
        .map(without_sources)
        .collect();
    assert_eq!(rank_table(&store), first);
    let stamp = store.platform_stamp(p.id).unwrap();
    // What an earlier build kept under the bare engine number: bytes
    // this form cannot read as its own.
    store
        .cache_summary(p.id, ENGINE_VERSION, stamp, &[1, 2, 3, 4])
        .unwrap();
    assert!(
        store
            .cached_summaries_all(cache::SUMMARY_KEY, cache::decode_summary)
            .unwrap()
            .is_empty()
    );
    // Read from the whole evidence (with its sources, this once), and
    // the summary written again.
    let from_whole = rank_table(&store);
    assert!(
        !from_whole[0]
            .metrics
            .values()
            .next()
            .unwrap()
            .runs
            .is_empty()
    );
    assert_eq!(
        from_whole
            .into_iter()
            .map(without_sources)
            .collect::<Vec<_>>(),
        first
    );
    assert_eq!(
        store
            .cached_summaries_all(cache::SUMMARY_KEY, cache::decode_summary)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(rank_table(&store), first);
}

#[test]
fn gathered_evidence_is_reused_until_something_it_is_made_of_changes() {
    let store = Store::open_in_memory().unwrap();
    let p = store
        .create_platform(&Platform::new("P", PlatformKind::Other, None).unwrap())
        .unwrap();
    let q = store
        .create_platform(&Platform::new("Q", PlatformKind::Other, None).unwrap())
        .unwrap();
    startup_run(&store, p.id, false);
    startup_run(&store, q.id, false);
    let rate = |store: &Store| {
        platform_evidence(store).unwrap()[0]
            .value(keys::STARTUP_FAILURE_RATE_PCT)
            .unwrap()
    };
    assert_eq!(rate(&store), 0.0);
    let stamp = store.platform_stamp(p.id).unwrap();
    assert!(
        store
            .cached_evidence(p.id, ENGINE_VERSION, stamp)
            .unwrap()
            .is_some(),
        "kept after the first gathering"
    );
    // A run added to P moves its stamp: gathered anew, not read stale.
    startup_run(&store, p.id, true);
    assert!(store.platform_stamp(p.id).unwrap() > stamp);
    assert_eq!(rate(&store), 50.0);
    // Q's cache is untouched by P's change.
    let q_stamp = store.platform_stamp(q.id).unwrap();
    assert!(
        store
            .cached_evidence(q.id, ENGINE_VERSION, q_stamp)
            .unwrap()
            .is_some()
    );
    // Deleting a run, or adding a claim, moves it on as well.
    let before = store.platform_stamp(p.id).unwrap();
    let runs = store.runs(Some(p.id)).unwrap();
    store.delete_run(runs[1].id).unwrap();
    assert!(store.platform_stamp(p.id).unwrap() > before);
    assert_eq!(rate(&store), 0.0);
    let before = store.platform_stamp(p.id).unwrap();
    store
        .add_claim(&crate::domain::Claim {
            id: 0,
            platform_id: p.id,
            subject: "availability".into(),
            value: Some(99.9),
            unit: Some("%".into()),
            text: None,
            source: "contract".into(),
        })
        .unwrap();
    assert!(store.platform_stamp(p.id).unwrap() > before);
    assert_eq!(platform_evidence(&store).unwrap()[0].claims.len(), 1);
}
