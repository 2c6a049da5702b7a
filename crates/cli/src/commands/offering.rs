//! `breakpoint offering …`

use std::collections::HashMap;

use breakpoint_api::domain::{Offering, OfferingSpec};

use super::{Context, Outcome};
use crate::args::{OfferingArgs, OfferingCommand};
use crate::output::{self, opt, opt_number};

pub fn run(ctx: &Context, command: OfferingCommand) -> Outcome {
    match command {
        OfferingCommand::Add(args) => add(ctx, args),
        OfferingCommand::List { platform } => list(ctx, platform.as_deref()),
        OfferingCommand::Rm { id } => {
            let offering = ctx.store.offering(id)?;
            ctx.store.delete_offering(id)?;
            if ctx.json {
                return Ok(output::print_json(&serde_json::json!({ "deleted": id }))?);
            }
            Ok(output::print(&format!(
                "deleted offering {id} ({}); runs keep their snapshot of it",
                offering.accelerator.canonical
            ))?)
        }
    }
}

fn add(ctx: &Context, a: OfferingArgs) -> Outcome {
    let platform = ctx.store.platform(&a.platform)?;
    let offering = OfferingSpec {
        accelerator: a.accelerator,
        vendor: a.vendor,
        count: a.count,
        vram_gib: a.vram_gib,
        form_factor: a.form_factor,
        interconnect: a.interconnect,
        pcie_gen: a.pcie_gen,
        pcie_width: a.pcie_width,
        cpu_cores: a.cpu_cores,
        ram_gib: a.ram_gib,
        region: a.region,
        min_driver: a.min_driver,
        min_cuda: a.min_cuda,
        currency: a.currency,
        price_on_demand: a.price_on_demand,
        price_spot: a.price_spot,
        price_monthly: a.price_monthly,
        price_storage: a.price_storage,
        price_transfer: a.price_transfer,
    }
    .build(platform.id)?;
    let offering = ctx.store.create_offering(&offering)?;
    if ctx.json {
        return Ok(output::print_json(&offering)?);
    }
    Ok(output::print(&format!(
        "added offering {} to {}: {} × {}",
        offering.id, platform.name, offering.count, offering.accelerator.canonical
    ))?)
}

fn list(ctx: &Context, platform: Option<&str>) -> Outcome {
    let platform_id = platform
        .map(|name| ctx.store.platform(name).map(|p| p.id))
        .transpose()?;
    let offerings = ctx.store.offerings(platform_id)?;
    if ctx.json {
        return Ok(output::print_json(&offerings)?);
    }
    let names: HashMap<i64, String> = ctx
        .store
        .platforms()?
        .into_iter()
        .map(|p| (p.id, p.name))
        .collect();
    Ok(output::print(&table_of(&offerings, |o| {
        names.get(&o.platform_id).cloned().unwrap_or_default()
    }))?)
}

/// The offerings table, shared with `platform show`.
pub fn table_of(offerings: &[Offering], platform_name: impl Fn(&Offering) -> String) -> String {
    if offerings.is_empty() {
        return "  none\n".into();
    }
    let mut t = output::table(&[
        "id",
        "platform",
        "accelerator",
        "count",
        "interconnect",
        "PCIe",
        "region",
        "on-demand /GPU-h",
        "spot /GPU-h",
        "monthly /GPU-h",
    ]);
    for o in offerings {
        let pcie = breakpoint_api::domain::pcie_link(o.pcie_gen, o.pcie_width);
        let price = |p: Option<f64>| {
            p.map(|v| format!("{} {}", output::number(v), o.prices.currency))
                .unwrap_or_else(|| opt_number(None))
        };
        t.add_row(vec![
            o.id.to_string(),
            platform_name(o),
            o.accelerator.canonical.clone(),
            o.count.to_string(),
            opt(o.interconnect),
            pcie,
            opt(o.region.as_deref()),
            price(o.prices.on_demand),
            price(o.prices.spot),
            price(o.prices.monthly),
        ]);
    }
    format!("{t}\n")
}
