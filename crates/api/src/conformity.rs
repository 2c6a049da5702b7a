//! Recording a live delivery check: what this machine's GPUs are, compared
//! with what was ordered, kept as a delivery run of the platform.

use crate::domain::{GpuInfo, NewRun, Provenance, RunKind, SourceKind};
use crate::store::{RunCompletion, RunRecords, Store};
use breakpoint_core::conformity::{Mismatch, mismatches};

/// What the order says the hardware should be.
pub use breakpoint_core::conformity::Expectation;

/// A check's outcome: the differences, and the run that records it.
#[derive(Debug, Clone, PartialEq)]
pub struct ConformityCheck {
    pub mismatches: Vec<Mismatch>,
    /// The delivery run, when the check was made for a platform.
    pub run_id: Option<i64>,
}

/// What a check is against.
#[derive(Debug, Clone)]
pub enum Order {
    /// An offering: its promise, recorded on its platform.
    Offering(i64),
    /// Stated expectations, recorded on a platform when one is named.
    Stated {
        expected: Box<Expectation>,
        platform_id: Option<i64>,
    },
}

/// Compare this machine's `gpus` with the order, and record the check as a
/// delivery run of the platform where there is one.
pub fn check(
    store: &Store,
    order: &Order,
    gpus: &[GpuInfo],
) -> crate::Result<(Expectation, ConformityCheck)> {
    let (expected, platform_id, offering_id) = match order {
        Order::Offering(id) => {
            let offering = store.offering(*id)?;
            (
                Expectation::from(&offering),
                Some(offering.platform_id),
                Some(*id),
            )
        }
        Order::Stated {
            expected,
            platform_id,
        } => ((**expected).clone(), *platform_id, None),
    };
    let found = mismatches(&expected, gpus);
    let run_id = platform_id
        .map(|platform| record_check(store, platform, offering_id, gpus))
        .transpose()?;
    Ok((
        expected,
        ConformityCheck {
            mismatches: found,
            run_id,
        },
    ))
}

/// Store a live delivery check as a delivery run of the platform: the
/// inventory seen now (the startup metric compares it with the offering's
/// snapshot). Returns the run id.
pub fn record_check(
    store: &Store,
    platform_id: i64,
    offering_id: Option<i64>,
    gpus: &[GpuInfo],
) -> crate::Result<i64> {
    let host = gpus.iter().find_map(|g| g.host.clone());
    let mut run = NewRun::new(platform_id, RunKind::Delivery, SourceKind::Probe);
    run.offering_id = offering_id;
    run.provenance = Provenance {
        format: Some("probe-check".into()),
        host: host.clone(),
        ..Provenance::default()
    };
    let now = jiff::Timestamp::now();
    let completion = RunCompletion {
        started_at: Some(now),
        ended_at: Some(now),
        host,
        inventory: gpus.to_vec(),
        ..RunCompletion::default()
    };
    let (id, ()) = store.record_run(run, |_, _| -> crate::Result<_> {
        Ok((RunRecords::default(), completion, ()))
    })?;
    Ok(id)
}
