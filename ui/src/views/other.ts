// Probe, Billing, Export and Settings: smaller screens over one command each.

import { save } from "@tauri-apps/plugin-dialog";
import { api, messageOf } from "../api";
import { append, clear, h } from "../dom";
import { language, setLanguage, t } from "../i18n";

export async function probeView(root: HTMLElement, go: (view: string) => void): Promise<void> {
  const state = await api.probeInventory();
  clear(root);
  append(root, h("h1", {}, t("probe")));
  if (state.status !== "ready") {
    append(root, h("section", { class: "empty", id: "no-gpu" }, h("h2", {}, t("noGpuTitle")), h("p", {}, t("noGpuText")),
      state.message ? h("p", { class: "muted" }, state.message) : null,
      h("button", { class: "primary", onclick: () => go("runs") }, t("goImport"))));
    return;
  }
  append(root, h("table", { id: "gpus" },
    h("thead", {}, h("tr", {}, ...["GPU", t("name"), "UUID", "VRAM", "driver", "CUDA", "PCIe", "power limit"].map((k) => h("th", {}, k)))),
    h("tbody", {}, ...state.gpus.map((g) => h("tr", {}, h("td", {}, String(g.index)), h("td", {}, g.canonical), h("td", {}, g.uuid ?? ""),
      h("td", {}, g.vram_mib === null ? "" : `${g.vram_mib} MiB`), h("td", {}, g.driver ?? ""), h("td", {}, g.cuda ?? ""), h("td", {}, g.pcie),
      h("td", {}, g.power_limit_w === null ? "" : `${g.power_limit_w} W`))))));
}

export async function billingView(root: HTMLElement): Promise<void> {
  const input = h("input", { id: "workload", value: "compute=1h42m18s,io-wait=34m42s", "aria-label": t("workload"), size: 48 });
  const out = h("div", { id: "bills" });
  const run = async () => {
    clear(out);
    try {
      const rows = await api.bill(input.value);
      append(out, h("table", {},
        h("thead", {}, h("tr", {}, ...[t("platform"), t("rule"), t("price"), t("billed"), t("amount"), t("fair"), t("overcharge")].map((k) => h("th", {}, k)))),
        h("tbody", {}, ...rows.map((r) => h("tr", {}, h("td", {}, r.platform), h("td", {}, r.rule ?? r.missing ?? ""),
          h("td", { class: "num" }, r.price === null ? "–" : `${r.price} ${r.currency ?? ""}`),
          h("td", { class: "num" }, r.billed_seconds === null ? "–" : `${(r.billed_seconds / 3600).toFixed(2)} h`),
          h("td", { class: "num strong" }, r.amount === null ? "–" : r.amount.toFixed(2)),
          h("td", { class: "num" }, r.fair_amount === null ? "–" : r.fair_amount.toFixed(2)),
          h("td", { class: "num" }, r.overcharge_pct === null ? "–" : `${r.overcharge_pct >= 0 ? "+" : ""}${r.overcharge_pct.toFixed(1)} %`))))));
    } catch (e) {
      append(out, h("p", { class: "error" }, messageOf(e)));
    }
  };
  const go = h("button", { class: "primary", id: "price-it" }, t("compute"));
  go.addEventListener("click", run);
  clear(root);
  append(root, h("h1", {}, t("billing")), h("div", { class: "inline" }, h("label", {}, h("span", {}, t("workload")), input), go), out);
  await run();
}

export async function exportView(root: HTMLElement): Promise<void> {
  const info = await api.appInfo();
  const defaultPath = info.db_path.replace(/[^/\\]*$/, "decision-matrix.pdf");
  const path = h("input", { id: "export-path", value: defaultPath, size: 60, "aria-label": t("path") });
  const lang = h("select", { id: "export-lang", "aria-label": t("language") }, h("option", { value: "en" }, "English"), h("option", { value: "zh" }, "简体中文"));
  lang.value = language();
  const title = h("input", { id: "export-title", "aria-label": t("title") });
  const date = h("input", { id: "export-date", type: "date", "aria-label": t("date") });
  const choose = h("button", {}, t("choose"));
  choose.addEventListener("click", async () => {
    const chosen = await save({ defaultPath: path.value, filters: [{ name: "PDF", extensions: ["pdf"] }] });
    if (chosen) path.value = chosen;
  });
  const status = h("p", { id: "export-status", role: "status" });
  const go = h("button", { class: "primary", id: "export-pdf" }, t("exportPdf"));
  go.addEventListener("click", async () => {
    go.setAttribute("disabled", "");
    status.textContent = "…";
    try {
      const r = await api.exportReport({ path: path.value, lang: lang.value, title: title.value || null, date: date.value || null });
      status.textContent = `${t("wrote")} ${r.path} (${r.pages} pages, ${Math.round(Number(r.bytes) / 1024)} KB)`;
    } catch (e) {
      status.textContent = messageOf(e);
      status.className = "error";
    } finally {
      go.removeAttribute("disabled");
    }
  });
  clear(root);
  append(root, h("h1", {}, t("exportTitle")),
    h("div", { class: "form" },
      h("label", {}, h("span", {}, t("path")), path, choose),
      h("label", {}, h("span", {}, t("language")), lang),
      h("label", {}, h("span", {}, t("title")), title),
      h("label", {}, h("span", {}, t("date")), date)),
    go, status);
}

export async function settingsView(root: HTMLElement, relabel: () => void): Promise<void> {
  const info = await api.appInfo();
  const lang = h("select", { id: "language", "aria-label": t("language") }, h("option", { value: "en" }, "English"), h("option", { value: "zh" }, "简体中文"));
  lang.value = language();
  lang.addEventListener("change", async () => {
    setLanguage(lang.value);
    await api.setLanguage(lang.value);
    relabel();
    await settingsView(root, relabel);
  });
  clear(root);
  append(root, h("h1", {}, t("settings")),
    h("dl", {}, h("dt", {}, t("database")), h("dd", { id: "db-path" }, info.db_path), h("dt", {}, t("version")), h("dd", {}, info.version)),
    h("label", {}, h("span", {}, t("language")), lang));
}
