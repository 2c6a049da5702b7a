//! `breakpoint perf`: delivered performance side by side, per accelerator
//! model — each platform's figures against the datasheet and its peers.

use breakpoint_api::performance;
use breakpoint_api::performance::number;

use super::{Context, Outcome};
use crate::output;

pub fn run(ctx: &Context) -> Outcome {
    let models = performance::compare(&ctx.store)?;
    if ctx.json {
        return Ok(output::print_json(&models)?);
    }
    if models.is_empty() {
        return Ok(output::print(
            "no perf runs yet: run `breakpoint accept perf` on an instance and import its log\n",
        )?);
    }
    let mut text = String::new();
    for m in &models {
        text.push_str(&format!("{}\n", m.model));
        let mut t = output::table(&[
            "platform",
            "GPUs",
            "test",
            "median",
            "of nominal",
            "against the same model",
        ]);
        for p in &m.platforms {
            for f in &p.figures {
                t.add_row(vec![
                    p.platform.clone(),
                    p.gpus.to_string(),
                    f.test.clone(),
                    format!("{} {}", number(f.value), f.unit),
                    f.share_pct.map_or("–".into(), |s| format!("{s:.0} %")),
                    match f.percentile {
                        Some(pct) => format!(
                            "above {pct:.0} % of {} other{}",
                            f.peers - 1,
                            if f.peers == 2 { "" } else { "s" }
                        ),
                        None => "alone".into(),
                    },
                ]);
            }
        }
        text.push_str(&format!("{t}\n"));
    }
    Ok(output::print(&text)?)
}
