// The Probe screen: this machine's GPUs, a conformity check against an
// offering, sampling with a live chart, and a workload run under the probe.

import { open } from "@tauri-apps/plugin-dialog";
import { api, messageOf, on } from "../api";
import type { ProbeFinished } from "../bindings/ProbeFinished";
import type { ProbeStarted } from "../bindings/ProbeStarted";
import type { ProbeTick } from "../bindings/ProbeTick";
import { type Point, lineChart } from "../chart";
import { append, clear, h } from "../dom";
import { duration } from "../format";
import { clearErrors, showError } from "../forms";
import { t } from "../i18n";
import type { Mount } from "../lifecycle";

export async function probeView(root: HTMLElement, go: (view: string) => void, mount: Mount): Promise<void> {
  const state = await api.probeInventory();
  clear(root);
  append(root, h("h1", {}, t("probe")));
  if (state.status !== "ready") {
    append(root, h("section", { class: "empty", id: "no-gpu" }, h("h2", {}, t("noGpuTitle")), h("p", {}, t("noGpuText")),
      state.message ? h("p", { class: "muted" }, state.message) : null,
      h("button", { class: "primary", onclick: () => go("runs") }, t("goImport"))));
    return;
  }
  append(root, state.message ? h("p", { class: "banner", id: "probe-note" }, state.message) : null,
    h("table", { id: "gpus" },
      h("thead", {}, h("tr", {}, ...["GPU", t("name"), "UUID", "VRAM", "driver", "CUDA", "PCIe", "power limit"].map((k) => h("th", {}, k)))),
      h("tbody", {}, ...state.gpus.map((g) => h("tr", {}, h("td", {}, String(g.index)),
        h("td", {}, g.unreadable !== null ? `${t("unreadableGpu")}: ${g.unreadable}`
          : g.mig.length > 0 ? `${g.canonical} (MIG: ${g.mig.join(", ")})` : g.canonical), h("td", {}, g.uuid ?? ""),
        h("td", {}, g.vram_mib === null ? "" : `${g.vram_mib} MiB`), h("td", {}, g.driver ?? ""), h("td", {}, g.cuda ?? ""), h("td", {}, g.pcie),
        h("td", {}, g.power_limit_w === null ? "" : `${g.power_limit_w} W`))))),
    await conformityPanel(),
    await samplingPanel(state.gpus.map((g) => `GPU ${g.index} ${g.canonical}`), mount));
}

async function conformityPanel(): Promise<HTMLElement> {
  const platforms = await api.listPlatforms();
  const details = await Promise.all(platforms.filter((p) => p.offerings > 0).map((p) => api.platformDetail(p.id)));
  const offering = h("select", { id: "check-offering", "aria-label": t("offering") },
    ...details.flatMap((d) => d.offerings.map((o) => h("option", { value: o.id }, `${d.platform.name} · ${o.count} × ${o.accelerator}`))));
  const check = h("button", { id: "check-conformity" }, t("checkConformity"));
  const result = h("div", { id: "conformity-result", role: "status" });
  check.addEventListener("click", async () => {
    clear(result);
    try {
      const r = await api.probeCheck(Number(offering.value));
      append(result, r.mismatches.length
        ? h("div", { class: "warning" }, h("p", {}, `${r.mismatches.length} ${t("mismatches")} (run ${r.run_id})`), h("ul", {}, ...r.mismatches.map((m) => h("li", {}, m))))
        : h("p", { class: "ok" }, `${t("conformityMatches")}: ${r.gpus} GPU (run ${r.run_id})`));
    } catch (e) {
      append(result, h("p", { class: "error" }, messageOf(e)));
    }
  });
  if (!details.some((d) => d.offerings.length)) check.setAttribute("disabled", "");
  return h("section", { class: "form" }, h("h2", {}, t("conformityCheck")),
    h("div", { class: "inline" }, h("label", {}, h("span", {}, t("offering")), offering), check), result);
}

// Sampling outlives the screen: the job, its points and the listeners are
// kept here so coming back to Probe shows the running session.
const sampling = {
  job: null as number | null, logPath: "", points: [] as Point[][], status: "", listening: false, label: "",
  finished: null as ProbeFinished | null,
};
const MAX_POINTS = 600;
let redraw: () => void = () => {};

async function samplingPanel(labels: string[], mount: Mount): Promise<HTMLElement> {
  const interval = h("select", { id: "probe-interval", "aria-label": t("interval") },
    ...[["1000", "1 s"], ["500", "500 ms"], ["5000", "5 s"]].map(([v, l]) => h("option", { value: v }, l)));
  const start = h("button", { class: "primary", id: "probe-start" }, t("startSampling"));
  const stop = h("button", { id: "probe-stop" }, t("stopSampling"));
  const status = h("p", { id: "probe-status", role: "status" });
  const chart = h("div", { id: "probe-chart" });
  const outcome = h("div", { id: "workload-outcome" });
  const workload = workloadForm(interval);
  redraw = () => {
    const running = sampling.job !== null;
    start.toggleAttribute("disabled", running);
    workload.run.toggleAttribute("disabled", running);
    stop.toggleAttribute("disabled", !running);
    status.textContent = sampling.status;
    clear(chart);
    if (sampling.points.some((p) => p.length)) append(chart, lineChart(sampling.points, labels, "W"));
    clear(outcome);
    if (!running && sampling.finished) append(outcome, ...finishedView(sampling.finished));
  };
  // The session's listeners stay (sampling outlives the screen); this
  // screen's elements stop being drawn when it is left.
  mount.hold(() => {
    redraw = () => {};
  });
  if (!sampling.listening) {
    sampling.listening = true;
    await on<ProbeTick>("probe-tick", (e) => {
      for (const g of e.payload.gpus) {
        if (g.power_w === null) continue;
        const series = (sampling.points[g.gpu] ??= []);
        series.push([e.payload.t_ms, g.power_w]);
        if (series.length > MAX_POINTS) series.shift();
      }
      sampling.status = `${sampling.label} · ${e.payload.samples} ${t("samples").toLowerCase()} · ${sampling.logPath}`;
      redraw();
    });
    await on<ProbeFinished>("probe-finished", (e) => {
      sampling.job = null;
      sampling.finished = e.payload.error ? null : e.payload;
      sampling.status = e.payload.error ?? `${t("wrote")} ${e.payload.log_path} (${e.payload.samples} ${t("samples").toLowerCase()}, ${e.payload.duration_s.toFixed(0)} s)`;
      redraw();
    });
  }
  const begin = async (starting: () => Promise<ProbeStarted>, label: string): Promise<void> => {
    const started = await starting();
    sampling.points = [];
    sampling.finished = null;
    sampling.job = started.job;
    sampling.logPath = started.log_path;
    sampling.label = label;
    sampling.status = `${label} · ${started.log_path}`;
    redraw();
  };
  start.addEventListener("click", async () => {
    try {
      await begin(() => api.probeStart(Number(interval.value)), t("sampling"));
    } catch (e) {
      sampling.status = messageOf(e);
      redraw();
    }
  });
  workload.onRun(begin);
  stop.addEventListener("click", async () => {
    if (sampling.job !== null) await api.cancelJob(sampling.job);
  });
  const panel = h("section", { class: "form" }, h("h2", {}, t("liveSampling")),
    h("div", { class: "inline" }, h("label", {}, h("span", {}, t("interval")), interval), start, stop),
    h("h3", {}, t("wrapTitle")), workload.form, status, outcome, chart);
  redraw();
  return panel;
}

/** The "run a workload" row: a command line and a folder. The backend asks
 *  for confirmation in a native dialog before anything runs. */
function workloadForm(interval: HTMLSelectElement) {
  const command = h("input", { id: "workload-command", size: 42, placeholder: "python3 train.py --epochs 1", "aria-label": t("workloadCommand") });
  const dir = h("input", { id: "workload-dir", size: 28, placeholder: "/home/me/project", "aria-label": t("folder") });
  const choose = h("button", { type: "button", id: "workload-choose" }, t("choose"));
  choose.addEventListener("click", async () => {
    const chosen = await open({ directory: true, multiple: false });
    if (typeof chosen === "string") dir.value = chosen;
  });
  const run = h("button", { type: "submit", class: "primary", id: "workload-run" }, t("runWorkload"));
  const slots = { command_line: errorSpan("workload-command-error"), dir: errorSpan("workload-dir-error"), form: errorSpan("workload-error") };
  const form = h("form", { class: "inline", id: "workload-form", novalidate: true },
    h("label", {}, h("span", {}, t("workloadCommand")), command, slots.command_line),
    h("label", {}, h("span", {}, t("folder")), dir, choose, slots.dir),
    run, slots.form, h("p", { class: "muted hint" }, t("workloadHint")));
  return {
    form, run,
    onRun(begin: (starting: () => Promise<ProbeStarted>, label: string) => Promise<void>): void {
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        clearErrors(slots);
        try {
          await begin(() => api.probeRun(command.value, dir.value.trim() || null, Number(interval.value)), `${t("running")} ${command.value.trim()}`);
        } catch (e) {
          showError(e, slots);
        }
      });
    },
  };
}

function errorSpan(id: string): HTMLElement {
  return h("span", { class: "field-error", id, role: "alert" });
}

/** What a finished session left: for a workload its figures and last
 *  output lines, and for both an import into a platform in one click. */
function finishedView(done: ProbeFinished): HTMLElement[] {
  const parts: HTMLElement[] = [];
  const w = done.workload;
  if (w) {
    const exit = w.exit_code === null ? t("bySignal") : String(w.exit_code);
    parts.push(h("dl", { class: "figures", id: "workload-figures" },
      h("dt", {}, t("workloadCommand")), h("dd", {}, w.command),
      h("dt", {}, t("exitCode")), h("dd", { id: "workload-exit" }, w.stopped ? `${exit} (${t("stoppedByYou")})` : exit),
      h("dt", {}, t("wallTime")), h("dd", {}, duration(w.wall_s)),
      h("dt", {}, t("gpuBusy")), h("dd", {}, w.busy_s === null ? t("unknownNoUtil") : duration(w.busy_s)),
      h("dt", {}, t("firstActivity")), h("dd", {}, w.first_activity_s !== null ? duration(w.first_activity_s)
        : w.gpu_use_unknown ? t("gpuUseUnknown") : t("neverUsedGpu"))));
    parts.push(h("p", { class: "muted" }, `${t("output")}: ${w.output_path}`));
    if (w.output_tail.length) parts.push(h("pre", { class: "output", id: "workload-output" }, w.output_tail.join("\n")));
  }
  parts.push(importPanel(done.log_path));
  return parts;
}

/** Import the log just written into a platform, without leaving Probe. */
function importPanel(logPath: string): HTMLElement {
  const target = h("select", { id: "probe-import-platform", "aria-label": t("importTo") });
  const go = h("button", { id: "probe-import" }, t("importLog"));
  const result = h("span", { id: "probe-import-result", role: "status" });
  void api.listPlatforms().then((platforms) => {
    append(target, ...platforms.map((p) => h("option", { value: p.id }, p.name)));
    go.toggleAttribute("disabled", platforms.length === 0);
  });
  go.addEventListener("click", async () => {
    go.setAttribute("disabled", "");
    try {
      const [row] = await api.importFiles(Number(target.value), [logPath]);
      result.textContent = !row ? "" : row.status === "failed" ? (row.error ?? row.status)
        : `${t(row.status === "imported" ? "imported" : "alreadyImported")}: run ${row.run_id ?? ""}`;
    } catch (e) {
      result.textContent = messageOf(e);
      go.removeAttribute("disabled");
    }
  });
  return h("div", { class: "inline" }, h("label", {}, h("span", {}, t("importTo")), target), go, result);
}
