//! `breakpoint decision log`: the decision's history.

use breakpoint_api::decision_log;

use super::{Context, Outcome};
use crate::args::DecisionCommand;
use crate::output;

pub fn run(ctx: &Context, command: DecisionCommand) -> Outcome {
    match command {
        DecisionCommand::Log { limit } => {
            let entries = decision_log::entries(&ctx.store, limit)?;
            if ctx.json {
                return Ok(output::print_json(&entries)?);
            }
            if entries.is_empty() {
                return Ok(output::print(
                    "no entry yet: the history begins with the next import that moves the answer",
                )?);
            }
            let mut text = String::new();
            for e in &entries {
                text.push_str(&format!(
                    "{}  {}\n  {}\n  now: {}\n",
                    output::time(e.at),
                    e.trigger,
                    e.changed.join("; "),
                    e.standing.sentence
                ));
            }
            Ok(output::print(text.trim_end())?)
        }
    }
}
