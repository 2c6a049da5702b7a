// History: one platform's metrics run by run over time, each with the
// degradation test's verdict (the same history `explain --history` prints).

import { api, messageOf } from "../api";
import type { HistoryView } from "../bindings/HistoryView";
import type { MetricHistoryView } from "../bindings/MetricHistoryView";
import { lineChart } from "../chart";
import { append, clear, h } from "../dom";
import { value } from "../format";
import { t } from "../i18n";

export async function historyView(root: HTMLElement): Promise<void> {
  const platforms = await api.listPlatforms();
  const select = h("select", { id: "history-platform", "aria-label": t("platform") },
    ...platforms.map((p) => h("option", { value: String(p.id) }, p.name)));
  const since = h("input", { id: "history-since", type: "date", "aria-label": t("since") });
  const until = h("input", { id: "history-until", type: "date", "aria-label": t("until") });
  const out = h("div", { id: "history" });
  const form = h("form", { class: "inline", id: "history-form" },
    h("label", {}, t("platform"), " ", select), h("label", {}, t("since"), " ", since), h("label", {}, t("until"), " ", until),
    h("button", { type: "submit", class: "primary" }, t("show")));
  const load = async (): Promise<void> => {
    clear(out);
    out.setAttribute("aria-busy", "true");
    try {
      const view = await api.platformHistory(Number(select.value), since.value || null, until.value || null);
      renderHistory(out, view);
    } catch (e) {
      append(out, h("p", { class: "error" }, messageOf(e)));
    } finally {
      out.removeAttribute("aria-busy");
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void load();
  });
  select.addEventListener("change", () => void load());
  clear(root);
  append(root, h("h1", {}, t("history")), h("p", { class: "hint" }, t("historyHint")), form, out);
  if (platforms.length) await load();
}

function renderHistory(el: HTMLElement, view: HistoryView): void {
  if (!view.metrics.length) {
    append(el, h("p", {}, t("noHistory")));
    return;
  }
  // Degraded metrics first: they are what the screen is for.
  const metrics = [...view.metrics].sort((a, b) => Number(b.degradation !== null) - Number(a.degradation !== null));
  append(el, ...metrics.map(metricSection));
}

function metricSection(m: MetricHistoryView): HTMLElement {
  const series = m.points.map((p) => [p.at_ms, p.value] as [number, number]);
  const days = (ms: number): string => `${(ms / 86_400_000).toFixed(ms < 864_000_000 ? 1 : 0)} d`;
  const chart = lineChart([series], [m.name], m.unit, 720, 140, (e) => days(e.x1 - e.x0));
  const verdict = m.degradation !== null
    ? h("p", { class: "warning" }, `${t("degraded")}: ${m.degradation}`)
    : h("p", { class: "hint" }, m.points.length < m.runs_needed ? `${t("tooFewRuns")} (${m.points.length} / ${m.runs_needed})` : t("noDegradation"));
  return h("section", { class: "history-metric", "data-key": m.key, "data-degraded": String(m.degradation !== null) },
    h("h3", {}, m.name, " ", h("small", { class: "key" }, m.key)),
    verdict,
    chart,
    h("details", {}, h("summary", {}, `${m.points.length} ${t("runs").toLowerCase()}`),
      h("table", {},
        h("thead", {}, h("tr", {}, h("th", {}, t("measuredAt")), h("th", {}, t("runDetail")), h("th", {}, t("value")))),
        h("tbody", {}, ...m.points.map((p) => h("tr", {},
          h("td", {}, p.at.slice(0, 16).replace("T", " ")),
          h("td", {}, `#${p.run_id} ${p.file ?? "–"}`),
          h("td", { class: "num" }, value(p.value, m.unit))))))));
}
