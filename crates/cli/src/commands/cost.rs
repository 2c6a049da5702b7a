//! `breakpoint cost --job SPEC`: a job's time and money on every platform,
//! with its spread and what each term rests on.

use breakpoint_api::job_cost::{self, CostRequest, JobSpec, PlatformCost};

use super::{Context, Outcome};
use crate::args::CostArgs;
use crate::output;

pub fn run(ctx: &Context, args: CostArgs) -> Outcome {
    let mut spec = args.job.clone();
    if let Some(horizon) = &args.horizon {
        spec.push_str(&format!(",horizon={horizon}"));
    }
    if let Some(utilisation) = &args.utilisation {
        spec.push_str(&format!(",utilisation={utilisation}"));
    }
    let job = JobSpec::parse(&spec)?;
    let request = CostRequest {
        currency: args.money.currency.clone(),
        mode: args.mode,
        accelerator: args.money.accelerator.clone(),
        draws: args.draws,
        seed: args.seed,
    };
    let answered = job_cost::cost(&ctx.store, &job, &request)?;
    if ctx.json {
        return Ok(output::print_json(&answered)?);
    }
    let costs = &answered.platforms;
    let mut text = format!(
        "Job: {} on {} GPU(s), checkpoint every {}, {} h a day{}; {} draws, seed {}\n",
        answered.reading,
        job.gpus,
        breakpoint_api::text::duration_words(job.checkpoint_s),
        job.hours_per_day,
        job.deadline_s
            .map(|d| format!(", deadline {}", breakpoint_api::text::duration_words(d)))
            .unwrap_or_default(),
        args.draws,
        args.seed
    );
    let mut t = output::table(&[
        "platform",
        "cost p10 / p50 / p90",
        "mode",
        "hours p10 / p50 / p90",
        "days (p50)",
        "deadline met",
    ]);
    for c in costs {
        t.add_row(vec![
            c.platform.clone(),
            match &c.cost {
                Some(m) => format!("{} / {} / {} {}", m.p10, m.p50, m.p90, m.currency),
                None => c.missing.clone().unwrap_or_default(),
            },
            c.mode.map_or_else(|| "–".into(), |m| m.to_string()),
            c.hours.words(),
            if c.days.p50.is_finite() {
                format!("{:.1}", c.days.p50)
            } else {
                "–".into()
            },
            c.deadline_probability
                .map_or("–".into(), |p| format!("{:.0} %", 100.0 * p)),
        ]);
    }
    text.push_str(&format!("{t}\n{}\n\n", answered.answer));
    for c in costs {
        text.push_str(&terms(c));
    }
    text.push_str(
        "Terms marked \"not measured\" take a stated default with a wide band: measure them to narrow it.\n",
    );
    Ok(output::print(&text)?)
}

/// A platform's terms, one line each.
fn terms(c: &PlatformCost) -> String {
    let mut out = format!("{}:\n", c.platform);
    if let Some(pace) = &c.pace {
        out.push_str(&format!("  the work {}\n", pace.words(false)));
    }
    if c.unfinished > 0.0 {
        out.push_str(&format!(
            "  does not finish in {:.0} % of draws (held at {}× its compute time in the bands)\n",
            100.0 * c.unfinished,
            job_cost::NEVER_FINISHES
        ));
    }
    for part in &c.unpriced {
        out.push_str(&format!("  left out of the cost: {part}\n"));
    }
    if let Some(why) = &c.not_comparable {
        out.push_str(&format!("  not comparable: {why}\n"));
    }
    if let Some(priced_at) = &c.priced_at {
        out.push_str(&format!("  priced at {priced_at}\n"));
    }
    if let Some(rate) = &c.rate {
        out.push_str(&format!("  converted at {rate}\n"));
    }
    for term in &c.terms {
        let share = term
            .share
            .map(|s| format!(", {:.0} % of the hours", 100.0 * s))
            .unwrap_or_default();
        out.push_str(&format!(
            "  {}: {}{share} — {}\n",
            term.name,
            term.figure(false),
            term.source
        ));
    }
    out
}
