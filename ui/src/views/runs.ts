// Runs: import by dialog, drag-and-drop or path (several files at once,
// a progress bar each, cancellable), the import report, the list, and a
// run's charts.

import { getCurrentWebview } from "@tauri-apps/api/webview";
import { open } from "@tauri-apps/plugin-dialog";
import { api, isAppError, messageOf, on } from "../api";
import type { PullProgressView } from "../bindings/PullProgressView";
import type { EventRow } from "../bindings/EventRow";
import type { HealthRow } from "../bindings/HealthRow";
import type { ImportProgress } from "../bindings/ImportProgress";
import type { ImportRow } from "../bindings/ImportRow";
import { append, clear, h, svgImage } from "../dom";
import { duration } from "../format";
import { distinct, filterRuns, type RunFilter } from "../filters";
import { t } from "../i18n";
import type { Mount } from "../lifecycle";
import { runTimeline } from "./run-timeline";

export async function runsView(root: HTMLElement, mount: Mount): Promise<void> {
  const [platforms, runs] = await Promise.all([api.listPlatforms(), api.listRuns()]);
  const target = h("select", { id: "import-platform", "aria-label": t("importTo") }, ...platforms.map((p) => h("option", { value: p.id }, p.name)));
  const progress = h("div", { id: "import-progress" });
  const report = h("div", { id: "import-report" });
  const detail = h("div", { id: "run-detail" });
  let job: number | null = null;
  const cancel = h("button", { id: "cancel-import", disabled: true }, t("cancel"));
  cancel.addEventListener("click", () => { if (job !== null) void api.cancelJob(job); });

  const bars = new Map<string, HTMLProgressElement>();
  mount.hold(await on<number>("import-started", (e) => { job = e.payload; cancel.removeAttribute("disabled"); }));
  mount.hold(await on<ImportProgress>("import-progress", (e) => {
    const p = e.payload;
    let bar = bars.get(p.file);
    if (!bar) {
      bar = h("progress", { max: 100, value: 0 });
      bars.set(p.file, bar);
      append(progress, h("div", { class: "bar" }, h("span", {}, p.file), bar));
    }
    bar.value = p.total > 0 ? Math.min(100, (100 * p.bytes) / p.total) : 100;
  }));

  const run = async (paths: string[]) => {
    if (!paths.length || !target.value) return;
    clear(progress);
    bars.clear();
    clear(report);
    try {
      const rows = await api.importFiles(Number(target.value), paths);
      renderReport(report, rows);
    } catch (e) {
      append(report, h("p", { class: "error" }, messageOf(e)));
    } finally {
      job = null;
      cancel.setAttribute("disabled", "");
      await renderList(list, detail);
    }
  };

  const pick = h("button", { class: "primary", id: "import-files" }, t("importFiles"));
  pick.addEventListener("click", async () => {
    const chosen = await open({ multiple: true, directory: false });
    if (chosen) await run(Array.isArray(chosen) ? chosen : [chosen]);
  });
  const pathInput = h("input", { id: "import-path", "aria-label": t("importPath"), placeholder: "/path/to/gpu.csv" });
  const byPath = h("button", { id: "import-by-path" }, t("importPath"));
  byPath.addEventListener("click", () => run(pathInput.value.split("\n").map((s) => s.trim()).filter(Boolean)));

  const drop = h("div", { class: "dropzone", id: "dropzone" }, t("dropHere"),
    h("p", { class: "muted hint", id: "formats-hint" }, t("formatsHint")));
  mount.hold(await getCurrentWebview().onDragDropEvent((e) => {
    if (e.payload.type === "over") drop.classList.add("over");
    else if (e.payload.type === "drop") { drop.classList.remove("over"); void run(e.payload.paths); }
    else drop.classList.remove("over");
  }));

  const list = h("div", { id: "run-list" });
  clear(root);
  append(root, h("h1", {}, t("runs")),
    h("div", { class: "inline" }, h("label", {}, h("span", {}, t("importTo")), target), pick, cancel),
    h("div", { class: "inline" }, pathInput, byPath), drop, progress, report,
    await prometheusSection(target, mount, () => renderList(list, detail)), list, detail);
  renderRunsTable(list, runs, detail);
}

/**
 * Import from Prometheus: the fleet's DCGM history, one run per node, with
 * a progress bar per node and a cancel. A token is read from an
 * environment variable of the app, never typed into the form.
 */
async function prometheusSection(target: HTMLSelectElement, mount: Mount, done: () => Promise<void>): Promise<HTMLElement> {
  const input = (id: string, label: string, placeholder: string, size = 24) =>
    h("input", { id, "aria-label": label, placeholder, size, autocomplete: "off" });
  const url = input("prom-url", t("promUrl"), "http://prometheus:9090", 32);
  const from = input("prom-from", t("from"), "2026-06-01T00:00:00Z");
  const to = input("prom-to", t("to"), "2026-06-03T00:00:00Z");
  const selector = input("prom-selector", t("selector"), "{Hostname=~\"node-.*\"}");
  const tokenEnv = input("prom-token-env", t("tokenEnv"), "PROM_TOKEN", 14);
  const summaries = h("input", { type: "checkbox", id: "prom-summaries" });
  const errors: Record<string, HTMLElement> = {};
  const labelled = (el: HTMLElement, key: string, text: string) => {
    errors[key] = h("span", { class: "field-error", id: `prom-${key}-error`, role: "alert" });
    return h("label", {}, h("span", {}, text), el, errors[key]);
  };
  const nodes = h("div", { id: "prom-progress" });
  const result = h("div", { id: "prom-result" });
  const go = h("button", { class: "primary", id: "prom-pull" }, t("pull"));
  const stop = h("button", { id: "prom-cancel", disabled: true }, t("cancel"));
  let job: number | null = null;
  const bars = new Map<string, HTMLProgressElement>();
  mount.hold(await on<number>("pull-started", (e) => { job = e.payload; stop.removeAttribute("disabled"); }));
  mount.hold(await on<PullProgressView>("pull-progress", (e) => {
    const p = e.payload;
    if (p.job !== job || p.node === null) return;
    let bar = bars.get(p.node);
    if (!bar) {
      bar = h("progress", { max: 100, value: 0 });
      bars.set(p.node, bar);
      append(nodes, h("div", { class: "bar", "data-node": p.node }, h("span", {}, p.node), bar));
    }
    bar.value = p.stored_samples !== null ? 100 : p.of > 0 ? (90 * p.done) / p.of : 0;
  }));
  stop.addEventListener("click", () => { if (job !== null) void api.cancelJob(job); });
  go.addEventListener("click", async () => {
    for (const e of Object.values(errors)) e.textContent = "";
    clear(nodes);
    clear(result);
    bars.clear();
    go.setAttribute("disabled", "");
    try {
      const r = await api.pullPrometheus({ platform_id: Number(target.value), url: url.value, from: from.value, to: to.value,
        step_s: null, selector: selector.value || null, token_env: tokenEnv.value || null,
        summaries: summaries.checked, window_s: null });
      append(result, h("table", { class: "report" },
        h("thead", {}, h("tr", {}, ...[t("node"), t("runs"), t("gpus"), t("samples"), ""].map((k) => h("th", {}, k)))),
        h("tbody", {}, ...r.nodes.map((n) => h("tr", { "data-node": n.node }, h("td", {}, n.node), h("td", {}, n.runs.map((id) => `#${id}`).join(", ")),
          h("td", { class: "num" }, String(n.gpus)), h("td", { class: "num" }, String(n.samples)), h("td", {}, n.already ? t("alreadyImported") : n.drilled.join("; ")))))),
        h("p", { class: "hint" }, `${r.requests} ${t("requests")}, ${r.retries} ${t("retried")}`));
      await done();
    } catch (e) {
      if (isAppError(e) && e.field && errors[e.field]) errors[e.field].textContent = e.message;
      else append(result, h("p", { class: "error" }, messageOf(e)));
    } finally {
      job = null;
      go.removeAttribute("disabled");
      stop.setAttribute("disabled", "");
    }
  });
  return h("details", { id: "prometheus", class: "panel" }, h("summary", {}, t("importPrometheus")),
    h("p", { class: "hint" }, t("prometheusHint")),
    h("div", { class: "inline" }, labelled(url, "url", t("promUrl")), labelled(from, "from", t("from")), labelled(to, "to", t("to"))),
    h("div", { class: "inline" }, labelled(selector, "selector", t("selector")), labelled(tokenEnv, "token_env", t("tokenEnv")),
      h("label", { title: t("summariesHint") }, summaries, h("span", {}, t("summaries"))), go, stop),
    nodes, result);
}

function renderReport(el: HTMLElement, rows: ImportRow[]): void {
  append(el, h("table", { class: "report" },
    h("thead", {}, h("tr", {}, ...["file", "status", "format", "samples", "gaps", "warnings"].map((k) => h("th", {}, t(k as "file"))))),
    h("tbody", {}, ...rows.map((r) => h("tr", { class: r.status },
      h("td", {}, r.file), h("td", {}, r.status === "imported" ? `run ${r.run_id}` : r.status === "already_imported" ? `already run ${r.run_id}` : r.status),
      h("td", {}, r.format ?? ""), h("td", { class: "num" }, String(r.samples || r.records)), h("td", { class: "num" }, String(r.gaps)),
      h("td", {}, r.error ? h("span", { class: "error" }, r.error) : r.warnings.join("; ")))))));
}

async function renderList(el: HTMLElement, detail: HTMLElement): Promise<void> {
  renderRunsTable(el, await api.listRuns(), detail);
}

type RunList = Awaited<ReturnType<typeof api.listRuns>>;
const filter: RunFilter = { platform: "", kind: "", text: "" };

function renderRunsTable(el: HTMLElement, runs: RunList, detail: HTMLElement): void {
  const options = (values: string[], current: string) => [h("option", { value: "" }, t("all")),
    ...values.map((v) => h("option", { value: v, selected: v === current ? true : undefined }, v))];
  const platform = h("select", { id: "filter-platform", "aria-label": t("platform") }, ...options(distinct(runs, (r) => r.platform), filter.platform));
  const kind = h("select", { id: "filter-kind", "aria-label": t("kindCol") }, ...options(distinct(runs, (r) => r.kind), filter.kind));
  const text = h("input", { id: "filter-text", type: "search", value: filter.text, placeholder: t("filterText"), "aria-label": t("filterText") });
  const table = h("div", {});
  const update = () => {
    filter.platform = platform.value;
    filter.kind = kind.value;
    filter.text = text.value;
    renderRunRows(table, filterRuns(runs, filter), runs.length, detail);
  };
  platform.addEventListener("change", update);
  kind.addEventListener("change", update);
  text.addEventListener("input", update);
  clear(el);
  append(el, h("div", { class: "inline filters" }, platform, kind, text), table);
  update();
}

function renderRunRows(el: HTMLElement, runs: RunList, total: number, detail: HTMLElement): void {
  clear(el);
  append(el, h("p", { class: "muted", id: "runs-count" }, `${runs.length} / ${total}`), h("table", { id: "runs-table" },
    h("thead", {}, h("tr", {}, ...["#", t("platform"), t("kindCol"), t("source"), t("format"), t("file"), t("started"), t("hours"), t("gpus"), t("samples"), t("records")].map((k) => h("th", {}, k)))),
    h("tbody", {}, ...runs.map((r) => {
      const open = h("button", { class: "link" }, String(r.id));
      open.addEventListener("click", () => showRun(detail, r.id, r.samples > 0));
      return h("tr", { "data-run": r.id }, h("td", {}, open), h("td", {}, r.platform), h("td", {}, r.kind), h("td", {}, r.source), h("td", {}, r.format ?? ""),
        h("td", {}, r.file ?? ""), h("td", {}, r.started_at ?? ""), h("td", { class: "num" }, r.hours === null ? "" : r.hours.toFixed(1)),
        h("td", { class: "num" }, String(r.gpus)), h("td", { class: "num samples" }, String(r.samples)),
        h("td", { class: "num records" }, String(r.records)));
    }))));
}

/** Whether an event counts against the platform, as a user reads it. */
function countedText(e: EventRow): string {
  if (e.counted) return t("countedYes");
  return e.blame === "application" ? t("countedApplication") : "–";
}

/** The run's interruptions and notes, by meaning: when, which GPU, how long, and whose fault. */
function eventTable(events: EventRow[], total: number): HTMLElement {
  return h("div", { id: "run-events" },
    h("h3", {}, `${t("events")} (${total > events.length ? `${events.length} / ${total}` : total})`),
    h("table", {},
      h("thead", {}, h("tr", {}, ...[t("eventKind"), "GPU", t("started"), t("duration"), t("detail"), t("counted")].map((k) => h("th", {}, k)))),
      h("tbody", {}, ...events.map((e) => h("tr", { "data-kind": e.kind, "data-counted": String(e.counted) },
        h("td", {}, e.code === null ? e.kind : `${e.kind} ${e.code}`),
        h("td", {}, e.gpu_label ?? (e.gpu === null ? t("allGpus") : String(e.gpu))),
        h("td", {}, e.at),
        h("td", { class: "num" }, e.duration_s === null ? "" : duration(e.duration_s)),
        h("td", { title: e.detail ?? "" }, e.meaning ?? e.detail ?? ""),
        h("td", {}, countedText(e)))))));
}

/** dcgmi diag results: every test, per GPU, failures first. */
function healthTable(rows: HealthRow[]): HTMLElement {
  const order = (s: string) => (s === "Fail" ? 0 : s === "Warn" ? 1 : 2);
  const sorted = [...rows].sort((a, b) => order(a.status) - order(b.status));
  return h("div", { id: "run-health" },
    h("h3", {}, t("healthChecks")),
    h("table", {},
      h("thead", {}, h("tr", {}, ...[t("test"), "GPU", t("status"), t("detail")].map((k) => h("th", {}, k)))),
      h("tbody", {}, ...sorted.map((c) => h("tr", { "data-status": c.status },
        h("td", {}, c.category ? `${c.category} › ${c.test}` : c.test),
        h("td", {}, c.gpu ?? t("allGpus")),
        h("td", {}, c.status),
        h("td", {}, c.message ?? ""))))));
}

/**
 * A run in detail. A run with samples asks for its timeline first, and for
 * its figures once the timeline is drawn: both read every sample of a long
 * run (the figures its energy), and asked at once they shared the cores and
 * the picture came later (610 ms instead of 300 for 1.4 M samples on two
 * cores).
 */
async function showRun(el: HTMLElement, id: number, hasSamples: boolean): Promise<void> {
  clear(el);
  const facts = h("div", {});
  const timeline = hasSamples ? runTimeline(id) : null;
  const closing = h("button", { onclick: () => clear(el) }, t("close"));
  const title = h("h2", {}, `${t("runDetail")} #${id}`);
  append(el, h("section", { class: "drawer" }, h("header", {}, title, closing), facts, timeline?.section ?? null));
  // The detail sits below the list, which may hold hundreds of runs.
  el.scrollIntoView({ behavior: "smooth", block: "start" });
  try {
    await timeline?.drawn;
    const d = await api.runDetail(id);
    title.textContent = `${t("runDetail")} #${d.run.id} — ${d.run.platform}`;
    append(facts,
      h("p", {}, `${d.run.file ?? ""} · ${d.run.format ?? ""} · ${d.run.samples} ${t("samples").toLowerCase()} · ${d.run.records} ${t("records").toLowerCase()} (${d.events} ${t("events").toLowerCase()}) · SHA-256 ${d.sha256 ?? "–"}`),
      d.inventory.length ? h("ul", {}, ...d.inventory.map((g) => h("li", {}, g))) : null,
      d.energy ? h("p", { id: "run-energy" }, `${t("energyOfRun")}: ${d.energy}`) : null,
      d.summary.length ? h("ul", { id: "run-summary" }, ...d.summary.map((line) => h("li", {}, line))) : null,
      d.run.warnings.length ? h("ul", { class: "warnings" }, ...d.run.warnings.map((w) => h("li", {}, w))) : null,
      d.conformity_problems.length
        ? h("div", { id: "run-conformity" }, h("h3", {}, t("conformityProblems")), h("ul", { class: "warnings" }, ...d.conformity_problems.map((p) => h("li", {}, p))))
        : null,
      d.faulty_gpus.length
        ? h("div", { id: "run-faulty" }, h("h3", {}, t("faultyGpus")), h("ul", { class: "warnings" }, ...d.faulty_gpus.map((p) => h("li", {}, p))))
        : null,
      d.health.length ? healthTable(d.health) : null,
      d.event_list.length ? eventTable(d.event_list, d.events) : null,
      d.startup_svg ? svgImage(d.startup_svg, "startup latency") : null);
  } catch (e) {
    append(facts, h("p", { class: "error" }, messageOf(e)));
  }
}
