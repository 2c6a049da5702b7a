// Platforms: list, add from a template or by hand (validation shown beside
// the field), and each platform's offerings, billing rules, claims and the
// checklists of the acceptance bundles imported for it, and its delivered
// performance against the datasheet and the other platforms on its model.

import { open, save } from "@tauri-apps/plugin-dialog";
import { api, isAppError, messageOf } from "../api";
import type { AcceptanceSheetView } from "../bindings/AcceptanceSheetView";
import type { PerfModelView } from "../bindings/PerfModelView";
import { numberOrNull, showError } from "../forms";
import { append, clear, h } from "../dom";
import { t, tf } from "../i18n";
import { figure } from "../format";

const KINDS = ["hyperscaler", "ai-native", "chip-vendor", "marketplace", "other"];

export async function platformsView(root: HTMLElement): Promise<void> {
  const [platforms, templates] = await Promise.all([api.listPlatforms(), api.templates()]);
  const detail = h("div", { id: "platform-detail" });
  const list = h("table", { id: "platform-list" },
    h("thead", {}, h("tr", {}, ...["name", "kind", "offerings", "runs", "samples"].map((k) => h("th", {}, k === "name" ? t("name") : k === "kind" ? t("kind") : k === "offerings" ? t("offerings") : k === "runs" ? t("runs") : t("samples"))))),
    h("tbody", {}, ...platforms.map((p) => {
      const name = h("button", { class: "link", "data-id": p.id }, p.name);
      name.addEventListener("click", () => showDetail(detail, p.id, root));
      return h("tr", {}, h("td", {}, name), h("td", {}, p.kind), h("td", { class: "num" }, String(p.offerings)), h("td", { class: "num" }, String(p.runs)), h("td", { class: "num" }, String(p.samples)));
    })));

  const templateSelect = h("select", { id: "template", "aria-label": t("addTemplate") }, ...templates.map((tp) => h("option", { value: tp.name }, `${tp.name} (${tp.kind})`)));
  const templateError = h("span", { class: "field-error", id: "template-error" });
  const addTemplate = h("button", { id: "add-template" }, t("add"));
  addTemplate.addEventListener("click", async () => {
    templateError.textContent = "";
    try {
      await api.addTemplate(templateSelect.value);
      await platformsView(root);
    } catch (e) {
      templateError.textContent = messageOf(e);
    }
  });

  const name = h("input", { id: "new-name", "aria-label": t("name"), autocomplete: "off" });
  const nameError = h("span", { class: "field-error", id: "new-name-error" });
  const kind = h("select", { id: "new-kind", "aria-label": t("kind") }, ...KINDS.map((k) => h("option", { value: k }, k)));
  const notes = h("input", { id: "new-notes", "aria-label": t("notes") });
  const form = h("form", { class: "inline", id: "add-platform" },
    h("label", {}, h("span", {}, t("name")), name, nameError),
    h("label", {}, h("span", {}, t("kind")), kind),
    h("label", {}, h("span", {}, t("notes")), notes),
    h("button", { type: "submit", class: "primary" }, t("add")));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    nameError.textContent = "";
    try {
      await api.addPlatform({ name: name.value, kind: kind.value, notes: notes.value || null });
      await platformsView(root);
    } catch (e) {
      // The core names the field: "name: must not be empty".
      nameError.textContent = messageOf(e);
    }
  });

  clear(root);
  append(root, h("h1", {}, t("platforms")), list, bundleSection(root),
    h("h2", {}, t("addTemplate")), h("div", { class: "inline" }, templateSelect, addTemplate, templateError),
    h("h2", {}, t("addPlatform")), form, detail);
}

async function showDetail(el: HTMLElement, id: number, root: HTMLElement): Promise<void> {
  try {
    const d = await api.platformDetail(id);
    const del = h("button", { class: "danger" }, t("delete"));
    del.addEventListener("click", async () => {
      if (!window.confirm(`${t("delete")} ${d.platform.name}?`)) return;
      await api.deletePlatform(id);
      await platformsView(root);
    });
    clear(el);
    append(el, h("section", { class: "drawer" },
      h("header", {}, h("h2", {}, d.platform.name), del),
      d.platform.notes ? h("p", {}, d.platform.notes) : null,
      h("h3", {}, t("offerings")),
      d.offerings.length ? h("ul", { id: "offerings" }, ...d.offerings.map((o) => {
        const remove = h("button", { class: "link", "aria-label": `${t("delete")} #${o.id}` }, t("delete"));
        remove.addEventListener("click", async () => {
          await api.deleteOffering(o.id);
          await showDetail(el, id, root);
        });
        return h("li", {}, `#${o.id} ${o.count} × ${o.accelerator} · PCIe ${o.pcie} · ${o.price} `, remove);
      })) : h("p", {}, "–"),
      offeringForm(id, () => showDetail(el, id, root)),
      h("h3", {}, t("billingRules")),
      d.billing.length ? h("ul", { id: "billing-rules" }, ...d.billing.map((b) => h("li", {}, b))) : h("p", {}, "–"),
      billingForm(id, () => showDetail(el, id, root)),
      h("h3", {}, t("claims")),
      d.claims.length ? h("ul", { id: "claims" }, ...d.claims.map((c) => h("li", {}, `${c.subject}${c.value ? ` ${c.value}` : ""}: ${c.text} [${c.source}]`))) : h("p", {}, "–"),
      claimForm(id, () => showDetail(el, id, root)),
      h("h3", {}, t("acceptance")),
      d.acceptance.length
        ? h("div", { id: "acceptance" }, ...d.acceptance.map(acceptanceSheet))
        : h("p", { class: "hint" }, t("acceptanceEmpty")),
      h("h3", {}, t("performance")),
      d.performance.length
        ? h("div", { id: "performance" }, ...d.performance.map(performanceSection))
        : h("p", { class: "hint" }, t("performanceEmpty"))));
  } catch (e) {
    clear(el);
    append(el, h("p", { class: "error" }, messageOf(e)));
  }
}

/**
 * Workspace bundles: export this workspace, merge a colleague's. A merge
 * that meets a conflict shows it and asks; nothing is merged until then.
 */
function bundleSection(root: HTMLElement): HTMLElement {
  const path = h("input", { id: "bundle-path", size: 48, placeholder: "/path/to/workspace.tar", "aria-label": t("bundleFile") });
  const out = h("div", { id: "bundle-result", role: "status" });
  const busy = (on: boolean): void => {
    for (const b of [choose, exportButton, importButton]) {
      if (on) b.setAttribute("disabled", "");
      else b.removeAttribute("disabled");
    }
    if (on) {
      clear(out);
      append(out, h("p", { class: "hint" }, t("working")));
    }
  };
  const choose = h("button", { type: "button" }, t("choose"));
  choose.addEventListener("click", async () => {
    const chosen = await open({ multiple: false, directory: false, filters: [{ name: "Breakpoint bundle", extensions: ["tar"] }] });
    if (typeof chosen === "string") path.value = chosen;
  });
  const exportButton = h("button", { id: "bundle-export" }, t("exportBundle"));
  exportButton.addEventListener("click", async () => {
    let target = path.value.trim();
    if (!target) {
      const chosen = await save({ defaultPath: "workspace.tar", filters: [{ name: "Breakpoint bundle", extensions: ["tar"] }] });
      if (!chosen) return;
      target = chosen;
      path.value = chosen;
    }
    busy(true);
    try {
      const done = await api.bundleExport(target);
      clear(out);
      append(out, h("p", {}, `${t("wrote")} ${done.path}: ${done.platforms.length} ${t("platforms").toLowerCase()}, ${done.runs} ${t("runs").toLowerCase()}, ${done.samples} ${t("samples").toLowerCase()}`),
        h("p", { class: "hint" }, `SHA-256 ${done.sha256}`));
    } catch (e) {
      clear(out);
      append(out, h("p", { class: "error" }, messageOf(e)));
    } finally {
      busy(false);
    }
  });
  const merge = async (resolution: string | null): Promise<void> => {
    busy(true);
    try {
      const m = await api.bundleImport(path.value.trim(), resolution);
      clear(out);
      append(out, h("p", { id: "bundle-merged" }, `${t("merged")} (${m.created_by}): ${m.runs_added} ${t("runsAdded")}, ${m.runs_already_here} ${t("alreadyHere")}`),
        m.platforms_added.length ? h("p", {}, `${t("platformsAdded")}: ${m.platforms_added.join(", ")}`) : null,
        m.conflicts.length ? h("ul", {}, ...m.conflicts.map((c) => h("li", {}, c))) : null,
        m.filed_elsewhere.length ? h("ul", {}, ...m.filed_elsewhere.map((c) => h("li", {}, c))) : null);
      const done = h("button", { id: "bundle-done" }, t("close"));
      done.addEventListener("click", () => void platformsView(root));
      append(out, done);
    } catch (e) {
      clear(out);
      if (isAppError(e) && e.kind === "conflict") {
        const keep = h("button", { id: "bundle-keep-ours" }, t("keepOurs"));
        const rename = h("button", { id: "bundle-rename-theirs", class: "primary" }, t("renameTheirs"));
        keep.addEventListener("click", () => void merge("keep-ours"));
        rename.addEventListener("click", () => void merge("rename-theirs"));
        append(out, h("section", { id: "bundle-conflicts", class: "warning" },
          h("pre", {}, e.message), h("div", { class: "inline" }, keep, rename)));
      } else {
        append(out, h("p", { class: "error" }, messageOf(e)));
      }
    } finally {
      busy(false);
    }
  };
  const importButton = h("button", { id: "bundle-import" }, t("importBundle"));
  importButton.addEventListener("click", async () => {
    if (!path.value.trim()) {
      const chosen = await open({ multiple: false, directory: false, filters: [{ name: "Breakpoint bundle", extensions: ["tar"] }] });
      if (typeof chosen !== "string") return;
      path.value = chosen;
    }
    await merge(null);
  });
  return h("section", { id: "bundles" }, h("h2", {}, t("bundles")), h("p", { class: "hint" }, t("bundlesHint")),
    h("div", { class: "inline" }, path, choose, exportButton, importButton), out);
}

/** One bundle's checklist as the instance printed it, failures marked. */
function acceptanceSheet(sheet: AcceptanceSheetView): HTMLElement {
  const summary = `${sheet.title} · ${t("runsOf")} ${sheet.runs.map((r) => `#${r}`).join(", ")}`
    + (sheet.failed > 0 ? ` · ${sheet.failed} ${t("checksFailed")}` : "");
  return h("section", { class: "acceptance-sheet" },
    h("p", {}, summary),
    h("table", {},
      h("thead", {}, h("tr", {}, ...[t("check"), t("measured"), t("threshold"), t("verdict")].map((k) => h("th", {}, k)))),
      h("tbody", {}, ...sheet.items.map((c) => h("tr", { class: c.passed === false ? "failed" : "" },
        h("td", {}, c.check),
        h("td", {}, c.measured),
        h("td", {}, c.threshold),
        h("td", {}, c.passed === null ? "–" : c.passed ? t("pass") : t("fail")))))));
}

function share(s: number | null): string {
  return s === null ? "–" : `${s.toFixed(0)} %`;
}

/** With its share in brackets: "1754 GB/s (86 %)". */
function withShare(v: number | null, unit: string, s: number | null): string {
  return v === null ? "–" : `${figure(v)} ${unit} (${share(s)})`;
}

/** The platform's figures on one model side by side with its peers, then
 * its latest perf run GPU by GPU, stragglers marked. */
function performanceSection(m: PerfModelView): HTMLElement {
  const figures = h("table", { class: "perf-figures" },
    h("thead", {}, h("tr", {}, ...[t("perfTest"), t("perfMedian"), t("ofNominal"), t("amongPeers")].map((k) => h("th", {}, k)))),
    h("tbody", {}, ...m.figures.map((f) => h("tr", {},
      h("td", {}, f.test),
      h("td", { class: "num" }, `${figure(f.value)} ${f.unit}`),
      h("td", { class: "num" }, share(f.share_pct)),
      h("td", {}, f.percentile === null ? t("perfAlone") : tf("abovePeers", { pct: f.percentile.toFixed(0), n: f.others }))))));
  const gpus = h("table", { class: "perf-gpus" },
    h("thead", {}, h("tr", {}, ...["GPU", t("perfMatrix"), t("perfCopy"), t("perfLink"), t("perfDecay"), t("perfStraggler")].map((k) => h("th", {}, k)))),
    h("tbody", {}, ...m.gpus.map((g) => h("tr", { class: g.straggler_test ? "failed" : "" },
      h("td", { class: "num" }, String(g.gpu)),
      h("td", { class: "num" }, g.gemm === null ? "–" : `${g.gemm_dtype ?? ""} ${withShare(g.gemm, "TFLOP/s", g.gemm_share_pct)}`),
      h("td", { class: "num" }, withShare(g.copy_gbps, "GB/s", g.copy_share_pct)),
      h("td", { class: "num" }, withShare(g.link_gbps, "GB/s", g.link_share_pct)),
      h("td", { class: "num" }, g.decay_pct === null ? "–" : `${g.decay_pct > 0.05 ? "−" : g.decay_pct < -0.05 ? "+" : "±"}${Math.abs(g.decay_pct).toFixed(1)} %`),
      h("td", {}, g.straggler_test === null || g.straggler_pct === null ? "" : tf("trailsBy", { test: g.straggler_test, pct: g.straggler_pct.toFixed(1) }))))));
  return h("section", { class: "perf-model" },
    h("h4", {}, m.model),
    figures,
    m.latest_run === null ? null : h("p", {}, tf("perGpu", { run: m.latest_run, host: m.host ?? "?" })),
    gpus);
}

function errorSpan(id: string): HTMLElement {
  return h("span", { class: "field-error", id, role: "alert" });
}

function offeringForm(platformId: number, done: () => Promise<void>): HTMLElement {
  const accelerator = h("input", { id: "offering-accelerator", placeholder: "NVIDIA A100-SXM4-80GB", "aria-label": t("accelerator") });
  const count = h("input", { id: "offering-count", type: "number", min: 1, value: "1", "aria-label": t("count") });
  const currency = h("input", { id: "offering-currency", value: "CNY", size: 5, "aria-label": t("currency") });
  const price = h("input", { id: "offering-price", type: "number", step: "any", min: 0, "aria-label": t("pricePerHour") });
  const spot = h("input", { id: "offering-spot", type: "number", step: "any", min: 0, "aria-label": t("spotPerHour") });
  const slots = { accelerator: errorSpan("offering-accelerator-error"), count: errorSpan("offering-count-error"),
    currency: errorSpan("offering-currency-error"), price_on_demand: errorSpan("offering-price-error"),
    price_spot: errorSpan("offering-spot-error"), form: errorSpan("offering-error") };
  const form = h("form", { class: "inline", id: "add-offering", novalidate: true },
    h("label", {}, h("span", {}, t("accelerator")), accelerator, slots.accelerator),
    h("label", {}, h("span", {}, t("count")), count, slots.count),
    h("label", {}, h("span", {}, t("currency")), currency, slots.currency),
    h("label", {}, h("span", {}, t("pricePerHour")), price, slots.price_on_demand),
    h("label", {}, h("span", {}, t("spotPerHour")), spot, slots.price_spot),
    h("button", { type: "submit" }, t("addOffering")), slots.form);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api.addOffering(platformId, { accelerator: accelerator.value, count: Number(count.value), currency: currency.value,
        price_on_demand: numberOrNull(price.value), price_spot: numberOrNull(spot.value), region: null });
      await done();
    } catch (e) {
      showError(e, slots);
    }
  });
  return form;
}

function billingForm(platformId: number, done: () => Promise<void>): HTMLElement {
  const mode = h("select", { id: "rule-mode", "aria-label": t("mode") }, ...["on-demand", "spot", "monthly"].map((m) => h("option", { value: m }, m)));
  const unit = h("input", { id: "rule-unit", type: "number", min: 1, value: "1", "aria-label": t("unitSeconds") });
  const minimum = h("input", { id: "rule-minimum", type: "number", min: 0, value: "0", "aria-label": t("minimumSeconds") });
  const rounding = h("select", { id: "rule-rounding", "aria-label": t("rounding") }, ...["ceil", "nearest", "floor"].map((r) => h("option", { value: r }, r)));
  const ioWait = h("input", { id: "rule-io-wait", type: "checkbox", checked: true });
  const idle = h("input", { id: "rule-idle", type: "checkbox", checked: true });
  const slots = { granularity_s: errorSpan("rule-unit-error"), minimum_charge_s: errorSpan("rule-minimum-error"), form: errorSpan("rule-error") };
  const form = h("form", { class: "inline", id: "set-billing", novalidate: true },
    h("label", {}, h("span", {}, t("mode")), mode),
    h("label", {}, h("span", {}, t("unitSeconds")), unit, slots.granularity_s),
    h("label", {}, h("span", {}, t("minimumSeconds")), minimum, slots.minimum_charge_s),
    h("label", {}, h("span", {}, t("rounding")), rounding),
    h("label", {}, ioWait, h("span", {}, t("billsIoWait"))),
    h("label", {}, idle, h("span", {}, t("billsIdle"))),
    h("button", { type: "submit" }, t("setRule")), slots.form);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const whole = (v: string) => (Number.isInteger(Number(v)) && Number(v) >= 0 ? Number(v) : -1);
    try {
      const granularity = whole(unit.value);
      const min = whole(minimum.value);
      if (granularity < 1) throw { kind: "invalid", field: "granularity_s", message: t("wholeSecondsAtLeastOne") };
      if (min < 0) throw { kind: "invalid", field: "minimum_charge_s", message: t("wholeSeconds") };
      await api.setBillingRule(platformId, { mode: mode.value, granularity_s: granularity, minimum_charge_s: min,
        rounding: rounding.value, bills_io_wait: ioWait.checked, bills_idle: idle.checked });
      await done();
    } catch (e) {
      showError(e, slots);
    }
  });
  return form;
}

function claimForm(platformId: number, done: () => Promise<void>): HTMLElement {
  const subject = h("input", { id: "claim-subject", placeholder: "availability", "aria-label": t("subject") });
  const value = h("input", { id: "claim-value", type: "number", step: "any", size: 8, "aria-label": t("value") });
  const unit = h("input", { id: "claim-unit", size: 6, "aria-label": t("unit") });
  const text = h("input", { id: "claim-text", "aria-label": t("claimText") });
  const source = h("input", { id: "claim-source", placeholder: "https://… / contract §4.2", "aria-label": t("source") });
  const slots = { subject: errorSpan("claim-subject-error"), value: errorSpan("claim-value-error"),
    unit: errorSpan("claim-unit-error"), source: errorSpan("claim-source-error"), form: errorSpan("claim-error") };
  const form = h("form", { class: "inline", id: "add-claim", novalidate: true },
    h("label", {}, h("span", {}, t("subject")), subject, slots.subject),
    h("label", {}, h("span", {}, t("value")), value, slots.value),
    h("label", {}, h("span", {}, t("unit")), unit, slots.unit),
    h("label", {}, h("span", {}, t("claimText")), text),
    h("label", {}, h("span", {}, t("source")), source, slots.source),
    h("button", { type: "submit" }, t("addClaim")), slots.form);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api.addClaim(platformId, { subject: subject.value, value: numberOrNull(value.value), unit: unit.value || null,
        text: text.value || null, source: source.value });
      await done();
    } catch (e) {
      showError(e, slots);
    }
  });
  return form;
}
