//! What a campaign will launch, when, and what it may cost — worked out,
//! shown and confirmed before anything runs. The scenarios are the source
//! documents' (the four-breakpoint review, §3.1): a baseline of requests a few seconds apart,
//! a peak of requests at once, and a mix of offerings at once.

use std::time::Duration;

use breakpoint_core::domain::{ImageState, LoadScenario};
use serde::Serialize;

use breakpoint_core::labelled_enum;

use crate::recipe::Recipe;

labelled_enum! {
    /// Which images the attempts use.
    pub enum Images ("image") {
        Warm => "warm",
        Cold => "cold",
        /// Warm and cold alternately.
        Both => "both",
    }
}

/// What the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub scenario: LoadScenario,
    /// The offering(s) to launch; empty: the recipe's first (baseline,
    /// peak) or all of them (mixed).
    pub offerings: Vec<String>,
    /// Attempts (per offering for mixed); `None`: the scenario's default.
    pub count: Option<u32>,
    /// Between baseline launches.
    pub spacing: Duration,
    pub images: Images,
    /// Names start with this (`bp-<campaign>-<n>`), so that instances are
    /// found by name in a console.
    pub campaign: String,
}

impl Request {
    pub fn new(scenario: LoadScenario, campaign: &str) -> Self {
        Self {
            scenario,
            offerings: Vec::new(),
            count: None,
            spacing: Duration::from_secs(5),
            images: Images::Warm,
            campaign: campaign.to_string(),
        }
    }
}

/// One attempt to be made.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlannedAttempt {
    pub index: usize,
    pub offering: String,
    pub image: ImageState,
    pub image_name: String,
    /// The instance's name: unique within the ledger.
    pub name: String,
    /// After the campaign's start.
    pub start_after_ms: u64,
}

/// The cost if every instance ran until the last stage's timeout: price ×
/// instances × the stages' timeouts, per currency.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Estimate {
    pub instances: usize,
    pub worst_case_minutes_each: f64,
    /// (currency, amount) for the offerings with a price.
    pub cost: Vec<(String, f64)>,
    /// Offerings with no price in the recipe: their cost is unknown.
    pub unpriced: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub attempts: Vec<PlannedAttempt>,
    pub estimate: Estimate,
}

/// The seed's shapes: ten requests five seconds apart; requests at once.
const BASELINE_COUNT: u32 = 10;
/// The most instances one campaign plans, whatever `--count` says (and
/// `--max-instances` lowers): past this a typo, not a test.
pub const MAX_PLANNED: u64 = 10_000;
const PEAK_COUNT: u32 = 10;
const MIXED_PER_OFFERING: u32 = 2;

/// Expand a request into attempts, or say why it cannot run.
pub fn plan(recipe: &Recipe, request: &Request) -> Result<Plan, String> {
    let offerings: Vec<&str> = if request.offerings.is_empty() {
        match request.scenario {
            LoadScenario::Mixed => recipe.offerings.iter().map(|o| o.name.as_str()).collect(),
            _ => vec![recipe.offerings[0].name.as_str()],
        }
    } else {
        request.offerings.iter().map(String::as_str).collect()
    };
    for name in &offerings {
        if recipe.offering(name).is_none() {
            return Err(format!(
                "the recipe has no offering \"{name}\" (it has: {})",
                recipe
                    .offerings
                    .iter()
                    .map(|o| o.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    if request.scenario == LoadScenario::Mixed && offerings.len() < 2 {
        return Err("a mixed scenario launches several offerings at once: the recipe (or --offering) must name at least two".into());
    }
    let count = request.count.unwrap_or(match request.scenario {
        LoadScenario::Baseline => BASELINE_COUNT,
        LoadScenario::Peak => PEAK_COUNT,
        LoadScenario::Mixed => MIXED_PER_OFFERING,
    });
    if count == 0 {
        return Err("--count must be at least 1".into());
    }
    // Checked before a list of that length is made.
    let per_round = if request.scenario == LoadScenario::Mixed {
        offerings.len() as u64
    } else {
        1
    };
    if u64::from(count) * per_round > MAX_PLANNED {
        return Err(format!(
            "--count {count}: {} instances; one campaign launches at most {MAX_PLANNED}",
            u64::from(count) * per_round
        ));
    }
    let mut attempts = Vec::new();
    let rounds: Vec<&str> = match request.scenario {
        LoadScenario::Mixed => (0..count).flat_map(|_| offerings.iter().copied()).collect(),
        _ => (0..count).map(|_| offerings[0]).collect(),
    };
    for (index, offering) in rounds.into_iter().enumerate() {
        let cold = match request.images {
            Images::Warm => false,
            Images::Cold => true,
            Images::Both => index % 2 == 1,
        };
        let o = recipe.offering(offering).ok_or("unknown offering")?;
        let image_name = o.image(cold).ok_or_else(|| {
            format!(
                "offering \"{offering}\" has no {} in the recipe",
                if cold { "cold_image" } else { "warm_image" }
            )
        })?;
        let start_after_ms = match request.scenario {
            LoadScenario::Baseline => request.spacing.as_millis() as u64 * index as u64,
            _ => 0,
        };
        attempts.push(PlannedAttempt {
            index,
            offering: offering.to_string(),
            image: if cold {
                ImageState::Cold
            } else {
                ImageState::Warm
            },
            image_name: image_name.to_string(),
            name: format!("bp-{}-{}", request.campaign, index + 1),
            start_after_ms,
        });
    }
    let hours = recipe.timeouts.worst_case().as_secs_f64() / 3600.0;
    let mut cost: Vec<(String, f64)> = Vec::new();
    let mut unpriced = Vec::new();
    for a in &attempts {
        let o = recipe.offering(&a.offering).ok_or("unknown offering")?;
        match o.price_per_hour {
            Some(p) => match cost.iter_mut().find(|(c, _)| *c == o.currency) {
                Some((_, total)) => *total += p * hours,
                None => cost.push((o.currency.clone(), p * hours)),
            },
            None if !unpriced.contains(&o.name) => unpriced.push(o.name.clone()),
            None => {}
        }
    }
    Ok(Plan {
        estimate: Estimate {
            instances: attempts.len(),
            worst_case_minutes_each: hours * 60.0,
            cost,
            unpriced,
        },
        attempts,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn recipe() -> Recipe {
        Recipe::parse(
            r#"
[[offering]]
name = "a"
price_per_hour = 6.0
warm_image = "w"
cold_image = "c"
[[offering]]
name = "b"
warm_image = "w2"
[commands]
launch = "x {name}"
id = { regex = "(i-\\d+)" }
first_compute = "y {id}"
teardown = "z {id}"
[timeouts]
launch = "1m"
provision = "4m"
ready = "3m"
first_compute = "1m"
teardown = "1m"
"#,
            "r.toml",
        )
        .unwrap()
    }

    #[test]
    fn the_seed_shapes() {
        let r = recipe();
        let p = plan(&r, &Request::new(LoadScenario::Baseline, "c1")).unwrap();
        assert_eq!(p.attempts.len(), 10);
        assert_eq!(p.attempts[3].start_after_ms, 15_000);
        assert_eq!(p.attempts[9].name, "bp-c1-10");
        // Ten instances at 6/h for at most 10 minutes each.
        assert_eq!(p.estimate.cost, vec![("CNY".to_string(), 10.0)]);

        let peak = Request {
            count: Some(100),
            images: Images::Both,
            ..Request::new(LoadScenario::Peak, "c2")
        };
        let p = plan(&r, &peak).unwrap();
        assert!(p.attempts.iter().all(|a| a.start_after_ms == 0));
        assert_eq!(p.attempts[1].image, ImageState::Cold);

        let p = plan(&r, &Request::new(LoadScenario::Mixed, "c3")).unwrap();
        assert_eq!(
            p.attempts
                .iter()
                .map(|a| a.offering.as_str())
                .collect::<Vec<_>>(),
            vec!["a", "b", "a", "b"]
        );
        assert_eq!(p.estimate.unpriced, vec!["b".to_string()]);
    }

    #[test]
    fn a_count_past_any_campaign_is_refused_before_anything_is_planned() {
        let r = recipe();
        let e = plan(
            &r,
            &Request {
                count: Some(1_000_000_000),
                ..Request::new(LoadScenario::Peak, "c")
            },
        )
        .unwrap_err();
        assert!(e.contains("at most 10000"), "{e}");
    }

    #[test]
    fn impossible_requests_are_refused() {
        let r = recipe();
        let cold_b = Request {
            offerings: vec!["b".into()],
            images: Images::Cold,
            ..Request::new(LoadScenario::Peak, "c")
        };
        assert!(plan(&r, &cold_b).unwrap_err().contains("no cold_image"));
        let unknown = Request {
            offerings: vec!["zz".into()],
            ..Request::new(LoadScenario::Peak, "c")
        };
        assert!(
            plan(&r, &unknown)
                .unwrap_err()
                .contains("no offering \"zz\"")
        );
    }
}
