//! `breakpoint db …`

use super::{Context, Outcome};
use crate::args::DbCommand;
use crate::output;

pub fn run(ctx: &Context, command: DbCommand) -> Outcome {
    match command {
        DbCommand::Init => {
            // Opening for writing created it and brought its schema up to date.
            let path = ctx.store.path().display().to_string();
            if ctx.json {
                return Ok(output::print_json(&serde_json::json!({ "path": path }))?);
            }
            Ok(output::print(&format!("database ready at {path}"))?)
        }
        DbCommand::Info => {
            let info = ctx.store.info()?;
            if ctx.json {
                return Ok(output::print_json(&info)?);
            }
            let per_sample = info
                .bytes_per_sample
                .map_or("–".to_string(), |b| format!("{b:.2}"));
            Ok(output::print(&format!(
                "database        {}\n\
                 schema version  {}\n\
                 platforms       {}\n\
                 offerings       {}\n\
                 billing rules   {}\n\
                 claims          {}\n\
                 runs            {}\n\
                 samples         {}\n\
                 events          {}\n\
                 size            {:.1} KiB ({:.1} KiB of samples, {per_sample} bytes per sample)",
                info.path,
                info.schema_version,
                info.platforms,
                info.offerings,
                info.billing_rules,
                info.claims,
                info.runs,
                info.samples,
                info.events,
                info.database_bytes as f64 / 1024.0,
                info.sample_bytes as f64 / 1024.0,
            ))?)
        }
    }
}
