//! A long ranking does not hold up a short command: the ranking runs off
//! the UI thread on a connection of its own, so listing platforms answers
//! while 100 platforms are ranked with 20 000 weight draws. Both latencies
//! are printed; what is asserted is the order of events, not a time.

use std::time::{Duration, Instant};

use breakpoint_api::Store;
use breakpoint_api::domain::{BillingMode, BillingRule, OfferingSpec, Platform, PlatformKind};
use serde_json::json;

use crate::harness::{Harness, call_on};

/// 100 platforms, each with an A100 offering at its own price and its own
/// billing unit: every one has billing evidence to rank on.
fn hundred_platforms(h: &Harness) {
    let store = Store::open(&h.dir.path().join("app.db")).unwrap();
    store
        .atomically(|s| {
            for i in 0..100u32 {
                let p = s.create_platform(&Platform::new(
                    &format!("Cloud {i:03}"),
                    PlatformKind::Other,
                    None,
                )?)?;
                s.create_offering(
                    &OfferingSpec {
                        accelerator: "A100 80GB SXM".into(),
                        count: 8,
                        currency: "CNY".into(),
                        price_on_demand: Some(10.0 + f64::from(i) * 0.37),
                        ..OfferingSpec::default()
                    }
                    .build(p.id)?,
                )?;
                let mut rule = BillingRule::per_second(p.id, BillingMode::OnDemand);
                rule.granularity_s = [1, 60, 600, 3600][i as usize % 4];
                s.set_billing_rule(&rule.validate()?)?;
            }
            Ok::<_, breakpoint_api::Error>(())
        })
        .unwrap();
}

#[test]
fn a_long_ranking_does_not_hold_up_a_short_command() {
    let h = Harness::new();
    hundred_platforms(&h);
    let webview = h.webview.clone();
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let slow = std::thread::spawn(move || {
        let started = Instant::now();
        let view = call_on(
            &webview,
            "rank",
            json!({ "request": { "samples": 20000, "seed": 1, "weights": [0, 0, 0, 1] } }),
        )
        .unwrap();
        let took = started.elapsed();
        done_tx.send(()).unwrap();
        (took, view)
    });
    // Short commands, one after another, until the ranking is back.
    let mut answered_while_ranking = Vec::new();
    loop {
        let started = Instant::now();
        let platforms = h.ok("list_platforms", json!({}));
        let took = started.elapsed();
        assert_eq!(platforms.as_array().unwrap().len(), 100);
        if done_rx.try_recv().is_ok() {
            break;
        }
        answered_while_ranking.push(took);
        if answered_while_ranking.len() > 10_000 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let (rank_took, view) = slow.join().unwrap();
    assert_eq!(view["platforms"].as_array().unwrap().len(), 100);
    let mut lat = answered_while_ranking.clone();
    lat.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "rank of 100 platforms, 20 000 draws: {:.0} ms; meanwhile list_platforms answered {} times, median {:.1} ms, slowest {:.1} ms",
        ms(rank_took),
        lat.len(),
        lat.get(lat.len() / 2).map_or(f64::NAN, |d| ms(*d)),
        lat.last().map_or(f64::NAN, |d| ms(*d)),
    );
    assert!(
        lat.len() >= 3,
        "only {} short commands answered while the ranking ran ({:.0} ms): it holds them up",
        lat.len(),
        ms(rank_took)
    );
}
