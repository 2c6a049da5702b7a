// ClusterMAX: the decision matrix in the ten categories of the industry's
// rating of GPU clouds, as the API says it (the same view
// `report --categories clustermax` prints and the PDF's page shows).

import { api } from "../api";
import type { CategoriesView } from "../bindings/CategoriesView";
import type { CategoryRow } from "../bindings/CategoryRow";
import { append, clear, h } from "../dom";
import { t } from "../i18n";

export async function clustermaxView(root: HTMLElement): Promise<void> {
  const view = await api.clustermaxView({ profile: null, weights: null, samples: null, seed: null, since: null, until: null });
  clear(root);
  append(root, h("h1", {}, t("clustermax")), h("p", { class: "hint" }, t("clustermaxHint")));
  if (!view.platforms.length) {
    append(root, h("h2", {}, t("emptyTitle")), h("p", {}, t("emptyText")));
    return;
  }
  append(root, ...view.categories.map((c) => categorySection(view, c)));
}

function categorySection(view: CategoriesView, c: CategoryRow): HTMLElement {
  const header = (first: string): HTMLElement =>
    h("thead", {}, h("tr", {}, h("th", {}, first), ...view.platforms.map((p) => h("th", { class: "num" }, p))));
  const section = h("section", { class: "category", "data-category": c.key },
    h("h2", {}, c.name), h("p", { class: "hint" }, c.evidenced_by));
  if (c.metrics.length) {
    append(section, h("table", { class: "category-metrics" }, header(t("metric")),
      h("tbody", {}, ...c.metrics.map((m) => h("tr", { "data-key": m.key },
        h("td", {}, m.name), ...m.figures.map((f) => h("td", { class: "num" }, f)))))));
  }
  const read = c.checks.filter((k) => !k.not_read);
  if (read.length) {
    append(section, h("table", { class: "category-checks" }, header(t("expectedCheck")),
      h("tbody", {}, ...read.map((k) => h("tr", {},
        h("td", { title: k.command }, k.name),
        ...k.measured.map((m) => h("td", { class: m === null ? "num muted" : "num", "data-measured": String(m !== null) }, m ?? "–")))))));
  }
  const todo = c.checks.filter((k) => k.not_read || k.measured.some((m) => m === null));
  if (todo.length) {
    append(section, h("ul", { class: "to-measure" }, ...todo.map((k) => h("li", {},
      k.not_read ? `${k.name}: ${t("notReadYet")} ` : `${t("toMeasure")} — ${k.name}: `,
      h("code", {}, k.command)))));
  }
  for (const a of c.audits) {
    append(section, h("div", { class: "audit", "data-platform": a.platform },
      h("p", {}, h("strong", {}, a.platform), ": ", a.said),
      a.results.length ? h("ul", {}, ...a.results.map((r) => h("li", { class: r.startsWith("fail") || r.startsWith("未通过") ? "warning" : "" }, r))) : null));
  }
  return section;
}
