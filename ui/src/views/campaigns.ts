// Campaigns: plan a startup campaign from a recipe, run it after the native
// confirmation (commands and worst-case cost), follow it live, stop it —
// everything launched is torn down — and see past campaigns and whatever
// the ledger says may still be running.

import { open } from "@tauri-apps/plugin-dialog";
import { api, messageOf, on } from "../api";
import type { CampaignForm } from "../bindings/CampaignForm";
import type { CampaignPlanView } from "../bindings/CampaignPlanView";
import type { CampaignProgress } from "../bindings/CampaignProgress";
import type { CampaignRow } from "../bindings/CampaignRow";
import type { OutstandingRow } from "../bindings/OutstandingRow";
import { append, clear, h, svgImage } from "../dom";
import { t } from "../i18n";
import type { Mount } from "../lifecycle";

export async function campaignsView(root: HTMLElement, mount: Mount): Promise<void> {
  const recipe = h("input", { id: "campaign-recipe", size: 60, placeholder: "docs/recipes/aws-ec2.toml", "aria-label": t("recipe") });
  const choose = h("button", {}, t("choose"));
  choose.addEventListener("click", async () => {
    const chosen = await open({ multiple: false, directory: false, filters: [{ name: "TOML", extensions: ["toml"] }] });
    if (typeof chosen === "string") recipe.value = chosen;
  });
  const scenario = h("select", { id: "campaign-scenario", "aria-label": t("scenario") },
    ...["baseline", "peak", "mixed"].map((s) => h("option", { value: s }, t(s as "baseline"))));
  const count = h("input", { id: "campaign-count", type: "number", min: "1", max: "20", value: "3", "aria-label": t("count") });
  const spacing = h("input", { id: "campaign-spacing", type: "number", min: "0", step: "0.5", value: "5", "aria-label": t("spacingS") });
  const image = h("select", { id: "campaign-image", "aria-label": t("image") },
    ...["warm", "cold", "both"].map((s) => h("option", { value: s }, s)));
  const platform = h("input", { id: "campaign-platform", placeholder: t("fromRecipe"), "aria-label": t("platform") });
  const form = (): CampaignForm => ({
    recipe_path: recipe.value.trim(),
    scenario: scenario.value,
    platform: platform.value.trim() || null,
    count: Number(count.value) || null,
    spacing_ms: Math.round(Number(spacing.value) * 1000),
    image: image.value,
  });
  const planBox = h("div", { id: "campaign-plan" });
  const progress = h("div", { id: "campaign-progress" });
  const error = h("p", { id: "campaign-error", class: "error", role: "alert" });
  const planBtn = h("button", { id: "campaign-plan-btn" }, t("planCampaign"));
  const runBtn = h("button", { id: "campaign-run", class: "primary" }, t("runCampaign"));
  const past = h("div", { id: "campaigns" });
  const ledger = h("div", { id: "campaign-ledger" });

  planBtn.addEventListener("click", async () => {
    error.textContent = "";
    clear(planBox);
    try {
      renderPlan(planBox, await api.campaignPlan(form()));
    } catch (e) {
      error.textContent = messageOf(e);
    }
  });
  runBtn.addEventListener("click", async () => {
    error.textContent = "";
    runBtn.setAttribute("disabled", "");
    try {
      const started = await api.campaignRun(form());
      const lines = h("ol", { id: "campaign-attempts" },
        ...Array.from({ length: started.instances }, (_, i) => h("li", { "data-attempt": i }, t("waiting"))));
      const stop = h("button", { id: "campaign-stop" }, t("stopCampaign"));
      stop.addEventListener("click", () => void api.cancelJob(started.job));
      clear(progress);
      append(progress, h("h3", {}, `${t("campaign")} ${started.name}`), lines, stop);
      mount.hold(await on<CampaignProgress>("campaign-progress", (event) => {
        const p = event.payload;
        if (p.job !== started.job) return;
        if (p.done) {
          stop.remove();
          append(progress, h("p", { id: "campaign-done" },
            p.run_id === null ? (p.detail ?? t("nothingRecorded")) : `${t("recordedAsRun")} ${p.run_id}`));
          runBtn.removeAttribute("disabled");
          void refresh(past, ledger);
          return;
        }
        if (p.what === "teardown_failed") {
          append(progress, h("p", { class: "error" }, p.detail ?? ""));
          return;
        }
        const li = lines.querySelector(`li[data-attempt="${p.attempt}"]`);
        if (li) {
          li.textContent = `${p.what}${p.detail ? ` — ${p.detail}` : ""}`;
          li.setAttribute("data-state", p.what);
        }
      }));
    } catch (e) {
      error.textContent = messageOf(e);
      runBtn.removeAttribute("disabled");
    }
  });

  clear(root);
  append(root, h("h1", {}, t("campaigns")),
    h("p", { class: "muted" }, t("campaignsIntro")),
    h("div", { class: "form" },
      h("label", {}, h("span", {}, t("recipe")), recipe, choose),
      h("label", {}, h("span", {}, t("platform")), platform),
      h("label", {}, h("span", {}, t("scenario")), scenario),
      h("label", {}, h("span", {}, t("count")), count),
      h("label", {}, h("span", {}, t("spacingS")), spacing),
      h("label", {}, h("span", {}, t("image")), image)),
    h("div", { class: "inline" }, planBtn, runBtn), error, planBox, progress,
    h("h2", {}, t("pastCampaigns")), past, h("h2", {}, t("ledger")), ledger);
  await refresh(past, ledger);
}

function renderPlan(el: HTMLElement, plan: CampaignPlanView): void {
  const cost = plan.cost.length ? plan.cost.join(" + ") : "?";
  append(el,
    h("p", { id: "campaign-estimate" },
      `${plan.instances} × ${plan.platform} (${plan.scenario}) — ${t("worstCase")} ${plan.worst_case_minutes_each.toFixed(1)} min ${t("each")}: ${t("atMost")} ${cost}` +
        (plan.unpriced.length ? ` (${t("unpriced")}: ${plan.unpriced.join(", ")})` : "")),
    h("table", {},
      h("thead", {}, h("tr", {}, ...[t("instance"), t("offering"), t("image"), t("startsAfter"), t("commands")].map((k) => h("th", {}, k)))),
      h("tbody", {}, ...plan.attempts.map((a) => h("tr", {},
        h("td", {}, a.name), h("td", {}, a.offering), h("td", {}, a.image), h("td", { class: "num" }, `${a.start_after_s.toFixed(1)} s`),
        h("td", {}, h("pre", {}, a.commands.join("\n"))))))));
}

async function refresh(past: HTMLElement, ledger: HTMLElement): Promise<void> {
  const [rows, open] = await Promise.all([api.listCampaigns(), api.campaignOutstanding()]);
  renderPast(past, rows);
  renderLedger(ledger, open);
}

function seconds(v: number | null): string {
  return v === null ? "–" : `${v.toFixed(1)} s`;
}

function renderPast(el: HTMLElement, rows: CampaignRow[]): void {
  clear(el);
  if (!rows.length) {
    append(el, h("p", { class: "muted" }, t("noCampaigns")));
    return;
  }
  append(el, h("table", { id: "campaigns-table" },
    h("thead", {}, h("tr", {}, ...["#", t("platform"), t("campaign"), t("scenario"), t("recipe"), t("started"), t("attempts"), "p50", "p95", t("failureRate")].map((k) => h("th", {}, k)))),
    h("tbody", {}, ...rows.map((r) => h("tr", { "data-run": r.run_id },
      h("td", {}, String(r.run_id)), h("td", {}, r.platform), h("td", {}, r.name), h("td", {}, r.scenario), h("td", {}, r.recipe),
      h("td", {}, r.started_at ?? ""), h("td", { class: "num" }, `${r.ok} / ${r.attempts}`),
      h("td", { class: "num" }, seconds(r.p50_s)), h("td", { class: "num" }, seconds(r.p95_s)),
      h("td", { class: "num" }, r.failure_rate_pct === null ? "–" : `${r.failure_rate_pct.toFixed(0)} %`))))));
  const latest = rows[0];
  if (latest.stages_svg) append(el, svgImage(latest.stages_svg, "campaign stages"));
}

function renderLedger(el: HTMLElement, open: OutstandingRow[]): void {
  clear(el);
  if (!open.length) {
    append(el, h("p", { id: "ledger-empty", class: "muted" }, t("ledgerEmpty")));
    return;
  }
  const cleanup = h("button", { id: "campaign-cleanup", class: "primary" }, t("cleanUp"));
  cleanup.addEventListener("click", async () => {
    cleanup.setAttribute("disabled", "");
    try {
      renderLedger(el, await api.campaignCleanup());
    } catch (e) {
      append(el, h("p", { class: "error" }, messageOf(e)));
    }
  });
  append(el, h("p", { class: "warnings" }, t("ledgerHolds")),
    h("table", {},
      h("thead", {}, h("tr", {}, ...[t("instance"), "id", t("since"), t("teardown")].map((k) => h("th", {}, k)))),
      h("tbody", {}, ...open.map((o) => h("tr", {}, h("td", {}, o.name), h("td", {}, o.id ?? t("noIdCheckConsole")), h("td", {}, o.since), h("td", {}, o.teardown ?? ""))))),
    cleanup);
}
