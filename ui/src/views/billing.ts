// The Billing screen: a workload priced on every platform's rule.

import { api, messageOf } from "../api";
import { append, clear, h } from "../dom";
import { t } from "../i18n";

export async function billingView(root: HTMLElement): Promise<void> {
  const input = h("input", { id: "workload", value: "compute=1h42m18s,io-wait=34m42s", "aria-label": t("workload"), size: 48 });
  const out = h("div", { id: "bills" });
  const run = async () => {
    clear(out);
    try {
      const rows = await api.bill(input.value);
      append(out, h("table", {},
        h("thead", {}, h("tr", {}, ...[t("platform"), t("rule"), t("price"), t("billed"), t("amount"), t("fair"), t("overcharge"), t("energyCol"), t("co2")].map((k) => h("th", {}, k)))),
        h("tbody", {}, ...rows.map((r) => h("tr", {}, h("td", {}, r.platform), h("td", {}, r.rule ?? r.missing ?? ""),
          h("td", { class: "num" }, r.price === null ? "–" : `${r.price} ${r.currency ?? ""}`),
          h("td", { class: "num" }, r.billed_seconds === null ? "–" : `${(r.billed_seconds / 3600).toFixed(2)} h`),
          h("td", { class: "num strong" }, r.amount === null ? "–" : r.amount.toFixed(2)),
          h("td", { class: "num" }, r.fair_amount === null ? "–" : r.fair_amount.toFixed(2)),
          h("td", { class: "num" }, r.overcharge_pct === null ? "–" : `${r.overcharge_pct >= 0 ? "+" : ""}${r.overcharge_pct.toFixed(1)} %`),
          h("td", { class: "num energy" }, r.gpu_kwh === null || r.facility_kwh === null ? t("noPower") : `${r.gpu_kwh.toFixed(2)} / ${r.facility_kwh.toFixed(2)} kWh`),
          h("td", { class: "num" }, r.co2_kg === null ? "–" : `${r.co2_kg.toFixed(2)} kg${r.default_factors ? "*" : ""}`))))),
      h("p", { class: "hint" }, t("energyNote")));
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
