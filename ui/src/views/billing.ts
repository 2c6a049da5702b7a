// The Billing screen: a workload priced on every platform's rule, and the
// imported bills against what was measured (the dispute sheet).

import { api, messageOf } from "../api";
import { append, clear, h } from "../dom";
import { t, tf } from "../i18n";
import type { DisputeSheetView } from "../bindings/DisputeSheetView";

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
      h("ul", { class: "hint", id: "bill-notes" }, ...rows.flatMap((r) => r.notes.map((n) => h("li", {}, `${r.platform}: ${n}`)))),
      h("p", { class: "hint" }, t("energyNote")));
    } catch (e) {
      append(out, h("p", { class: "error" }, messageOf(e)));
    }
  };
  const go = h("button", { class: "primary", id: "price-it" }, t("compute"));
  go.addEventListener("click", run);
  const disputes = h("section", { id: "disputes" });
  clear(root);
  append(root, h("h1", {}, t("billing")), h("div", { class: "inline" }, h("label", {}, h("span", {}, t("workload")), input), go), out,
    h("h2", {}, t("disputes")), disputes);
  await run();
  try {
    const sheets = await api.billDisputes();
    append(disputes, ...(sheets.length ? sheets.map(disputeSheet) : [h("p", { class: "hint" }, t("disputesEmpty"))]));
  } catch (e) {
    append(disputes, h("p", { class: "error" }, messageOf(e)));
  }
}

/** One platform's bill lines the measurements do not bear out, priced. */
function disputeSheet(s: DisputeSheetView): HTMLElement {
  return h("section", { class: "dispute-sheet" },
    h("h3", {}, s.platform),
    h("p", {}, tf("disputesSummary", { lines: s.lines, question: s.seconds_in_question.toFixed(0), billed: s.billed_seconds.toFixed(0), amounts: s.amounts.join(", ") })),
    s.unmeasured !== null ? h("p", { class: "hint unmeasured" }, s.unmeasured) : null,
    s.rows.length === 0 ? h("p", { class: "hint" }, t("disputesNone")) : h("table", {},
      h("thead", {}, h("tr", {}, ...[t("disputeFinding"), t("disputeLine"), t("billed"), t("disputeInQuestion"), t("disputeEvidence")].map((k) => h("th", {}, k)))),
      h("tbody", {}, ...s.rows.map((d) => h("tr", { class: d.amount_in_question !== "0.00" ? "failed" : "" },
        h("td", {}, d.finding_words),
        h("td", {}, d.line_id ? `${d.line_id} · ${d.instance}` : d.instance),
        h("td", { class: "num" }, d.billed_words),
        h("td", { class: "num strong" }, d.in_question_words),
        h("td", {}, d.evidence))))),
    s.unlisted > 0 ? h("p", { class: "hint" }, tf("disputesUnlisted", { count: s.unlisted })) : null);
}
