// A run's timeline in the run detail: asked for at the plot's width in
// pixels, drawn on a canvas, and asked for again on every zoom. Requests
// that a newer one overtook are dropped, so a quick series of zooms ends
// on the last.

import { api, messageOf } from "../api";
import type { TimelineView } from "../bindings/TimelineView";
import type { Timeline } from "../timeline";
import { h } from "../dom";
import { t } from "../i18n";
import { LAYOUT, SERIES, drawTimeline, plotColumns, selectedRange, zoomedOut } from "../timeline";

const FIELD_NAMES: Record<string, () => string> = {
  power_mw: () => t("power"),
  temp_gpu_c: () => t("temperature"),
  sm_clock_mhz: () => t("smClock"),
};

const text = {
  panel: (field: string, unit: string) => `${FIELD_NAMES[field]?.() ?? field} (${unit})`,
};

function legend(view: TimelineView): HTMLElement {
  // Coloured through the CSS object model: the page's policy refuses
  // inline style attributes.
  const swatch = (colour: string) => {
    const el = h("span", { class: "swatch" });
    el.style.background = colour;
    return el;
  };
  const gpus = view.panels[0]?.gpus.map((s) => s.gpu) ?? [];
  return h("div", { class: "legend" },
    ...gpus.map((gpu, n) => h("span", {}, swatch(SERIES[n % SERIES.length]), `GPU ${gpu}`)),
    h("span", {}, swatch("rgba(213, 94, 0, 0.35)"), t("thermalSlowdown")),
    h("span", {}, swatch("rgba(204, 121, 167, 0.35)"), t("hwSlowdown")),
    h("span", {}, swatch("#d55e00"), t("interruption")),
    view.interruptions.some((m) => m.lost_until_ms !== null) ? h("span", {}, swatch("rgba(90, 90, 90, 0.3)"), t("gpuLost")) : null);
}

/** The timeline section of run `id`, and when its first drawing is done (or failed). */
export function runTimeline(id: number): { section: HTMLElement; drawn: Promise<void> } {
  const canvas = h("canvas", { id: "timeline-canvas", class: "timeline", role: "img", "aria-label": t("timeline") });
  const selection = h("div", { class: "timeline-selection", hidden: true });
  const status = h("span", { class: "timeline-status" });
  const zoomOut = h("button", { id: "timeline-zoom-out", disabled: true }, t("zoomOut"));
  const whole = h("button", { id: "timeline-whole", disabled: true }, t("wholeRun"));
  const legendSlot = h("div", {});
  const error = h("p", { class: "error", hidden: true });
  const plot = h("div", { class: "timeline-plot" }, canvas, selection);
  const section = h("div", { id: "run-timeline" },
    h("h3", {}, t("timeline")),
    h("div", { class: "timeline-bar" }, zoomOut, whole, status, h("span", { class: "hint" }, t("timelineHint"))),
    legendSlot, plot, error);

  let shown: Timeline | null = null;
  let asked = 0;
  const width = () => Math.max(plot.clientWidth, 480);

  async function show(range: [number, number] | null): Promise<void> {
    const mine = ++asked;
    const w = width();
    canvas.dataset.drawn = "0";
    try {
      const asking = performance.now();
      const next = await api.runTimeline(id, range, plotColumns(w));
      if (mine !== asked) return;
      const answered = performance.now();
      shown = next;
      const drawing = await drawTimeline(canvas, next, w, text, () => mine !== asked);
      if (drawing === false) return;
      const view = next.view;
      // Where the wait went, for whoever measures it.
      canvas.dataset.askedMs = (answered - asking).toFixed(0);
      canvas.dataset.drawnMs = drawing.toFixed(0);
      legendSlot.replaceChildren(legend(view));
      const from = new Date(view.start_ms).toISOString().slice(0, 19).replace("T", " ");
      const to = new Date(view.end_ms).toISOString().slice(0, 19).replace("T", " ");
      status.textContent = `${from} → ${to} UTC · ${view.samples.toLocaleString()} ${t("samplesInView")}`;
      const zoomed = zoomedOut(view) !== null;
      zoomOut.disabled = !zoomed;
      whole.disabled = !zoomed;
      error.hidden = true;
      canvas.dataset.drawn = "1";
      canvas.dataset.samples = String(view.samples);
    } catch (e) {
      if (mine !== asked) return;
      error.textContent = messageOf(e);
      error.hidden = false;
    }
  }

  zoomOut.addEventListener("click", () => { if (shown) void show(zoomedOut(shown.view)); });
  whole.addEventListener("click", () => void show(null));
  canvas.addEventListener("dblclick", () => void show(null));

  // Drag to zoom: the selection is a box over the canvas, so the drawing
  // is not repainted while the pointer moves.
  let anchor: number | null = null;
  const xIn = (e: PointerEvent) => e.clientX - canvas.getBoundingClientRect().left - LAYOUT.left;
  canvas.addEventListener("pointerdown", (e) => {
    anchor = xIn(e);
    // Keeps the drag when the pointer leaves the canvas; a pointer the
    // browser does not track (a synthetic one) cannot be captured.
    if (e.isTrusted) canvas.setPointerCapture(e.pointerId);
  });
  canvas.addEventListener("pointermove", (e) => {
    if (anchor === null) return;
    const x = xIn(e);
    selection.hidden = false;
    selection.style.left = `${LAYOUT.left + Math.min(anchor, x)}px`;
    selection.style.width = `${Math.abs(x - anchor)}px`;
  });
  canvas.addEventListener("pointerup", (e) => {
    const from = anchor;
    anchor = null;
    selection.hidden = true;
    if (from === null || !shown) return;
    const x = xIn(e);
    if (Math.abs(x - from) < 4) return;
    const plotWidth = width() - LAYOUT.left - LAYOUT.right;
    void show(selectedRange(shown.view, from, x, plotWidth));
  });

  // Once in the page, so that the plot's width is known.
  const drawn = new Promise<void>((resolve) => requestAnimationFrame(() => void show(null).finally(resolve)));
  return { section, drawn };
}
