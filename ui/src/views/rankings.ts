// Rankings (home): the side-by-side matrix, weights that re-rank live, the
// robustness strip, and the metrics behind any cell.

import { api, messageOf } from "../api";
import type { RankView } from "../bindings/RankView";
import type { ProfileRow } from "../bindings/ProfileRow";
import { append, clear, h } from "../dom";
import { BREAKPOINTS, coalesce, percent, score, scoreColour, textOn } from "../format";
import { type MatrixKey, type MatrixSort, filterByName, firstDirection, sortMatrix } from "../filters";
import { type Key, t } from "../i18n";

interface State {
  profile: string;
  weights: number[];
  sort: MatrixSort;
  filter: string;
}

export async function rankingsView(root: HTMLElement, go: (view: string) => void): Promise<void> {
  // Asked together: each round trip is time before the first ranking.
  const [info, profiles] = await Promise.all([api.appInfo(), api.weightProfiles()]);
  if (info.platforms === 0) {
    const button = h("button", { class: "primary", id: "load-demo" }, t("loadDemo"));
    button.addEventListener("click", async () => {
      button.setAttribute("disabled", "");
      try {
        await api.loadDemo();
        await rankingsView(root, go);
      } catch (e) {
        append(root, h("p", { class: "error" }, messageOf(e)));
      }
    });
    clear(root);
    append(root, h("section", { class: "empty", id: "empty-state" }, h("h2", {}, t("emptyTitle")), h("p", {}, t("emptyText")), button, " ",
      h("button", { onclick: () => go("platforms") }, t("addPlatform"))));
    return;
  }
  const state: State = {
    profile: "balanced",
    weights: (profiles.find((p) => p.name === "balanced")?.weights ?? [0.25, 0.25, 0.25, 0.25]).slice(),
    sort: { key: "rank", descending: false },
    filter: "",
  };
  const matrix = h("div", { id: "matrix" });
  // The last ranking, redrawn in another order or filter without ranking again.
  let last: RankView | null = null;
  const redraw = () => {
    if (last) renderMatrix(matrix, last, state, drawer, redraw);
  };
  const filter = h("input", { type: "search", id: "matrix-filter", placeholder: t("filterPlatforms"), "aria-label": t("filterPlatforms") });
  filter.addEventListener("input", () => {
    state.filter = filter.value;
    redraw();
  });
  const strip = h("div", { id: "robustness", class: "strip" });
  const drawer = h("div", { id: "drawer" });
  const sliders = weightControls(profiles, state, () => refresh());
  clear(root);
  append(root, h("h1", {}, t("rankings")), info.demo ? h("p", { class: "banner" }, t("demoBanner")) : null, sliders,
    info.platforms > 8 ? h("div", { class: "matrix-tools" }, filter) : null, matrix, strip, drawer);

  const refresh = coalesce(async () => {
    try {
      performance.mark("rank-asked");
      const view = await api.rank({ profile: state.profile, weights: state.weights, samples: 2000, seed: 1, since: null, until: null });
      performance.mark("rank-answered");
      last = view;
      renderMatrix(matrix, view, state, drawer, redraw);
      // The first ranking on screen: what a launch is measured to.
      if (!performance.getEntriesByName("ranking-visible").length) performance.mark("ranking-visible");
      renderStrip(strip, view);
    } catch (e) {
      clear(matrix);
      append(matrix, h("p", { class: "error" }, messageOf(e)));
    }
  }, 40);
  refresh();
}

function weightControls(profiles: ProfileRow[], state: State, changed: () => void): HTMLElement {
  const select = h("select", { id: "profile", "aria-label": t("profile") }, ...profiles.map((p) => h("option", { value: p.name }, p.name)));
  select.value = state.profile;
  const ranges: HTMLInputElement[] = [];
  const labels: HTMLElement[] = [];
  const show = () => ranges.forEach((r, i) => { r.value = String(Math.round(state.weights[i] * 100)); labels[i].textContent = (state.weights[i] / state.weights.reduce((a, b) => a + b, 0) || 0).toFixed(2); });
  const controls = BREAKPOINTS.map((b, i) => {
    const range = h("input", { type: "range", min: 0, max: 100, step: 1, id: `weight-${b}`, "aria-label": t(b) });
    range.addEventListener("input", () => {
      state.weights[i] = Number(range.value) / 100;
      labels[i].textContent = (state.weights[i] / Math.max(1e-9, state.weights.reduce((a, c) => a + c, 0))).toFixed(2);
      changed();
    });
    ranges.push(range);
    const label = h("output", { id: `share-${b}` });
    labels.push(label);
    return h("label", { class: "weight" }, h("span", {}, t(b)), range, label);
  });
  select.addEventListener("change", () => {
    const p = profiles.find((x) => x.name === select.value);
    if (p) {
      state.profile = p.name;
      state.weights = p.weights.slice();
      show();
      changed();
    }
  });
  const save = h("button", { id: "save-profile" }, t("saveProfile"));
  save.addEventListener("click", async () => {
    const name = window.prompt(t("profileName"));
    if (!name) return;
    try {
      await api.saveWeightProfile(name, state.weights);
    } catch (e) {
      window.alert(messageOf(e));
    }
  });
  const box = h("div", { class: "weights" }, h("label", {}, h("span", {}, t("profile")), select), ...controls, save);
  show();
  return box;
}

/** The matrix's columns: what each sorts by and its heading. */
const COLUMNS: Array<[MatrixKey, Key]> = [
  ["rank", "rank"], ["name", "platform"], [0, "startup"], [1, "sustain"], [2, "switch"], [3, "billing"],
  ["overall", "overall"], ["coverage", "coverage"], ["evidence", "evidence"],
];

function renderMatrix(el: HTMLElement, view: RankView, state: State, drawer: HTMLElement, redraw: () => void): void {
  const head = h("tr", {}, ...COLUMNS.map(([key, label]) => {
    const sorted = state.sort.key === key;
    const button = h("button", { class: "sort", "data-sort": String(key) }, t(label), sorted ? (state.sort.descending ? " ▼" : " ▲") : "");
    button.addEventListener("click", () => {
      state.sort = sorted ? { key, descending: !state.sort.descending } : { key, descending: firstDirection(key) };
      redraw();
    });
    return h("th", { "aria-sort": sorted ? (state.sort.descending ? "descending" : "ascending") : "none" }, button);
  }));
  const shown = sortMatrix(filterByName(view.platforms, state.filter), state.sort);
  const rows = shown.map((p) =>
    h("tr", { class: p.insufficient ? "insufficient" : "", "data-platform": p.name },
      h("td", { class: "num" }, p.rank === null ? "–" : String(p.rank)),
      h("th", { scope: "row", class: "name" }, p.name, p.insufficient ? h("small", {}, ` ${t("insufficient")}`) : null),
      ...p.scores.map((s, i) => {
        const cell = h("button", { class: "cell", title: `${t(BREAKPOINTS[i])}: ${s === null ? t("notMeasured") : score(s)} (${t("coverage")} ${percent(p.coverages[i])})` },
          s === null ? t("notMeasured") : score(s));
        cell.style.background = scoreColour(s);
        cell.style.color = textOn(s);
        cell.addEventListener("click", () => explain(drawer, p.id, BREAKPOINTS[i], state));
        return h("td", {}, cell);
      }),
      h("td", { class: "num strong" }, score(p.overall)),
      h("td", { class: "num" }, percent(p.coverage)),
      h("td", { class: "num" }, String(p.evidence)),
    ),
  );
  clear(el);
  append(el, h("table", { class: "matrix" }, h("thead", {}, head), h("tbody", {}, ...rows)),
    shown.length < view.platforms.length ? h("p", { class: "muted", id: "matrix-hidden" }, `${shown.length} / ${view.platforms.length}`) : null);
}

function renderStrip(el: HTMLElement, view: RankView): void {
  clear(el);
  const ranked = view.platforms.filter((p) => p.rank !== null);
  append(el, h("h2", {}, `${t("robustness")} · ${view.samples}`),
    h("div", { class: "chips" }, ...ranked.map((p) => h("span", { class: "chip" }, `${p.name} ${t("pFirst")} ${percent(p.p_first)}`))),
    h("p", { class: view.decided ? "decision" : "warning", id: "decision" }, view.decision),
    view.p_best.length
      ? h("p", { id: "p-best" }, `${t("pBest")}: ${view.chances}`)
      : null,
    view.plan.length
      ? h("ol", { id: "next-measurements" }, ...view.plan.map((n) => h("li", { title: n.metrics.join(", ") },
        n.configuration ? `${t("configurationStep")} ` : "",
        h("code", {}, n.command),
        ` — ${n.measures} (${n.platforms.join(", ")}: ${n.cost}; ${t("pChange")} ${n.chance})`)))
      : null,
    view.fragile ? h("p", { class: "warning", id: "fragile" }, view.fragile) : null,
    view.degradations.length
      ? h("ul", { id: "degradations", class: "warning" }, ...view.degradations.map((d) => h("li", {}, `${t("degradation")}: ${d}`)))
      : null,
    view.stale_prices.length
      ? h("ul", { id: "stale-prices", class: "warning" }, ...view.stale_prices.map((p) => h("li", {}, p)))
      : null,
    view.flips.length ? h("ul", { class: "flips" }, ...view.flips.map((f) => h("li", {}, f))) : null);
}

async function explain(drawer: HTMLElement, platformId: number, breakpoint: string, state: State): Promise<void> {
  try {
    const cell = await api.explain(platformId, breakpoint, { profile: state.profile, weights: state.weights, samples: 0, seed: 1, since: null, until: null });
    const rows = cell.metrics.map((m) => h("tr", {},
      h("td", {}, m.name, h("small", { class: "key" }, m.key)),
      h("td", { class: "num" }, m.figure ?? t("notMeasured")),
      h("td", { class: "num" }, m.range),
      h("td", { class: "num" }, score(m.score)),
      h("td", { class: "num" }, String(m.weight)),
      h("td", {}, ...m.runs.map((r) => h("div", {}, r)), ...m.details.map((d) => h("div", { class: "detail" }, d))),
    ));
    clear(drawer);
    append(drawer, h("section", { class: "drawer" },
      h("header", {}, h("h2", {}, `${cell.platform} — ${t(breakpoint as "startup")} ${score(cell.score)} (${t("coverage")} ${percent(cell.coverage)})`),
        h("button", { onclick: () => clear(drawer) }, t("close"))),
      h("table", {}, h("thead", {}, h("tr", {}, ...["metric", "value", "range", "scoreCol", "weight", "runsCol"].map((k) => h("th", {}, t(k as "metric"))))), h("tbody", {}, ...rows))));
    drawer.scrollIntoView({ behavior: "smooth" });
  } catch (e) {
    clear(drawer);
    append(drawer, h("p", { class: "error" }, messageOf(e)));
  }
}
