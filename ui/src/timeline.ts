// A run's sustain timeline on a canvas, drawn from the engine's reduction:
// per pixel column and GPU the first, smallest, largest and last value, so
// the picture is every sample's at a cost that grows with the pixels. Drag
// across a panel to zoom in (the engine reads only that range, again at
// one column per pixel), zoom out or go back to the whole run with the
// buttons, or double-click. The geometry is pure and tested with Vitest.

import type { TimelinePanel } from "./bindings/TimelinePanel";
import type { TimelineSeries } from "./bindings/TimelineSeries";
import type { TimelineView } from "./bindings/TimelineView";

/** The report's palette (Okabe & Ito), GPU by GPU. */
export const SERIES = ["#0072b2", "#d55e00", "#009e73", "#e69f00", "#56b4e9", "#cc79a7", "#222222", "#999999"];
const THERMAL = "rgba(213, 94, 0, 0.18)";
const HARDWARE = "rgba(204, 121, 167, 0.18)";
const LOST = "rgba(90, 90, 90, 0.14)";
const INTERRUPTION = "#d55e00";

/** A timeline as the engine answers it: the header, and the values its series point into. */
export interface Timeline {
  view: TimelineView;
  values: Int32Array;
}

/**
 * Reads the engine's answer: the header's length (u32, little-endian), the
 * header as JSON, spaces up to a multiple of four bytes, then the values
 * as little-endian 32-bit integers, read in place.
 */
export function decodeTimeline(bytes: ArrayBuffer): Timeline {
  const data = new DataView(bytes);
  const n = data.getUint32(0, true);
  const view = JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 4, n))) as TimelineView;
  const start = 4 + Math.ceil(n / 4) * 4;
  const count = (bytes.byteLength - start) / 4;
  // Typed arrays use the machine's byte order; every machine the app runs
  // on is little-endian, and a big-endian one would be read value by value.
  const little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  const values = little
    ? new Int32Array(bytes, start, count)
    : Int32Array.from({ length: count }, (_, i) => data.getInt32(start + 4 * i, true));
  return { view, values };
}

/** Where panels sit in the canvas, in CSS pixels. */
export const LAYOUT = { left: 64, right: 12, panelHeight: 170, gap: 26, top: 8 };

/** The columns to ask for: one per CSS pixel of the plot. */
export function plotColumns(canvasWidth: number): number {
  return Math.max(16, Math.min(8192, Math.floor(canvasWidth - LAYOUT.left - LAYOUT.right)));
}

/** A panel's value range in display units, padded like the report's, from 0 at least. */
export function valueRange(panel: TimelinePanel, values: Int32Array): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of panel.gpus) {
    for (let i = s.at; i < s.at + 4 * s.columns.length; i += 4) {
      lo = Math.min(lo, values[i + 1]);
      hi = Math.max(hi, values[i + 2]);
    }
  }
  if (!Number.isFinite(lo)) return [0, 1];
  lo /= panel.scale;
  hi /= panel.scale;
  const pad = Math.max((hi - lo) * 0.08, 1);
  return [Math.max(lo - pad, 0), hi + pad];
}

/**
 * A series as strokes: per column its four values at the column's x, one
 * stroke per stretch without an outage (a column without samples is
 * bridged unless an outage ended in the next one).
 */
export function strokes(series: TimelineSeries, values: Int32Array): Array<Array<[number, number]>> {
  const out: Array<Array<[number, number]>> = [];
  let current: Array<[number, number]> = [];
  const breaks = new Set(series.breaks);
  series.columns.forEach((c, k) => {
    if (breaks.has(c) && current.length) {
      out.push(current);
      current = [];
    }
    for (let j = 0; j < 4; j++) current.push([c, values[series.at + 4 * k + j]]);
  });
  if (current.length) out.push(current);
  return out;
}

/** Stretches of columns with `bit` set in the throttle flags, as [from, to). */
export function shaded(throttle: number[], bit: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let from = -1;
  throttle.forEach((flags, c) => {
    const on = (flags & bit) !== 0;
    if (on && from < 0) from = c;
    if (!on && from >= 0) {
      out.push([from, c]);
      from = -1;
    }
  });
  if (from >= 0) out.push([from, throttle.length]);
  return out;
}

/** The time range under a selection from pixel `a` to `b` of a plot `width` wide. */
export function selectedRange(view: TimelineView, a: number, b: number, width: number): [number, number] {
  const span = view.end_ms - view.start_ms;
  const at = (x: number) => view.start_ms + (Math.max(0, Math.min(width, x)) / width) * span;
  const [from, to] = [at(Math.min(a, b)), at(Math.max(a, b))];
  return [Math.floor(from), Math.max(Math.ceil(to), Math.floor(from) + 1)];
}

/** Twice the range around its middle, within the run; `null` when the whole run is shown. */
export function zoomedOut(view: TimelineView): [number, number] | null {
  if (!view.span) return null;
  const [first, last] = view.span;
  const end = last + 1;
  if (view.start_ms <= first && view.end_ms >= end) return null;
  const width = view.end_ms - view.start_ms;
  let from = view.start_ms - width / 2;
  let to = view.end_ms + width / 2;
  if (from < first) [from, to] = [first, Math.min(end, to + (first - from))];
  if (to > end) [from, to] = [Math.max(first, from - (to - end)), end];
  return [Math.floor(from), Math.ceil(to)];
}

const STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/** Time ticks for a range: a round step giving at most `max` ticks, labelled in UTC. */
export function timeTicks(startMs: number, endMs: number, max: number): Array<{ ms: number; label: string }> {
  const span = Math.max(endMs - startMs, 1);
  const step = (STEPS_S.find((s) => (span / (s * 1000)) <= max) ?? 86400 * Math.ceil(span / 86400000 / max)) * 1000;
  const ticks: Array<{ ms: number; label: string }> = [];
  for (let ms = Math.ceil(startMs / step) * step; ms < endMs; ms += step) {
    const iso = new Date(ms).toISOString();
    const clock = step < 60000 ? iso.slice(11, 19) : iso.slice(11, 16);
    // Midnight shows the date, so a 48 h run reads across days.
    const label = step >= 3600000 && iso.slice(11, 16) === "00:00" ? iso.slice(5, 10) : clock;
    ticks.push({ ms, label });
  }
  return ticks;
}

/** Round value ticks between lo and hi. */
export function valueTicks(lo: number, hi: number, count = 4): number[] {
  const raw = (hi - lo) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw || 1));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

export interface TimelineText {
  panel: (field: string, unit: string) => string;
}

/** The canvas's height for a view, in CSS pixels. */
export function canvasHeight(view: TimelineView): number {
  const panels = Math.max(view.panels.length, 1);
  return LAYOUT.top + panels * (LAYOUT.panelHeight + LAYOUT.gap);
}

/**
 * Draws the view onto a canvas `width` CSS pixels wide, a panel per
 * animation frame so that the window keeps painting while a long run is
 * drawn. Stops early, returning false, once `stale()` says a newer view is
 * on its way; returns the milliseconds spent drawing otherwise.
 */
export async function drawTimeline(canvas: HTMLCanvasElement, { view, values }: Timeline, width: number, text: TimelineText,
  stale: () => boolean): Promise<number | false> {
  const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));
  let spent = 0;
  let started = performance.now();
  const height = canvasHeight(view);
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  canvas.style.width = `${width}px`;
  canvas.style.height = `${height}px`;
  const g = canvas.getContext("2d");
  if (!g) return false;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.fillStyle = "#fff";
  g.fillRect(0, 0, width, height);
  const plotWidth = width - LAYOUT.left - LAYOUT.right;
  const columnWidth = plotWidth / view.columns;
  const xOfColumn = (c: number) => LAYOUT.left + (c + 0.5) * columnWidth;
  const xOfTime = (ms: number) => LAYOUT.left + ((ms - view.start_ms) / (view.end_ms - view.start_ms)) * plotWidth;
  const ticks = timeTicks(view.start_ms, view.end_ms, Math.max(2, Math.floor(plotWidth / 90)));
  g.font = "11px sans-serif";
  for (const [k, panel] of view.panels.entries()) {
    if (k > 0) {
      spent += performance.now() - started;
      await nextFrame();
      if (stale()) return false;
      started = performance.now();
    }
    const top = LAYOUT.top + k * (LAYOUT.panelHeight + LAYOUT.gap);
    const bottom = top + LAYOUT.panelHeight;
    const [lo, hi] = valueRange(panel, values);
    const yOf = (v: number) => bottom - ((v / panel.scale - lo) / (hi - lo)) * LAYOUT.panelHeight;
    // Throttling and lost GPUs under the lines.
    for (const [bit, colour] of [[1, THERMAL], [2, HARDWARE]] as const) {
      g.fillStyle = colour;
      for (const [from, to] of shaded(view.throttle, bit)) {
        g.fillRect(LAYOUT.left + from * columnWidth, top, (to - from) * columnWidth, LAYOUT.panelHeight);
      }
    }
    g.fillStyle = LOST;
    for (const mark of view.interruptions) {
      if (mark.lost_until_ms === null) continue;
      const a = Math.max(xOfTime(mark.at_ms), LAYOUT.left);
      const b = Math.min(xOfTime(mark.lost_until_ms), LAYOUT.left + plotWidth);
      if (b > a) g.fillRect(a, top, b - a, LAYOUT.panelHeight);
    }
    // The frame, the grid and the axes' labels.
    g.strokeStyle = "#cbd5e1";
    g.lineWidth = 1;
    g.strokeRect(LAYOUT.left + 0.5, top + 0.5, plotWidth, LAYOUT.panelHeight);
    g.fillStyle = "#475569";
    g.textAlign = "right";
    g.textBaseline = "middle";
    for (const v of valueTicks(lo, hi)) {
      const y = Math.round(yOf(v * panel.scale)) + 0.5;
      g.beginPath();
      g.moveTo(LAYOUT.left, y);
      g.lineTo(LAYOUT.left + plotWidth, y);
      g.strokeStyle = "#eef2f6";
      g.stroke();
      g.fillText(String(v), LAYOUT.left - 6, y);
    }
    g.textAlign = "center";
    g.textBaseline = "top";
    for (const tick of ticks) g.fillText(tick.label, xOfTime(tick.ms), bottom + 4);
    g.save();
    g.translate(12, (top + bottom) / 2);
    g.rotate(-Math.PI / 2);
    g.fillText(text.panel(panel.field, panel.unit), 0, -6);
    g.restore();
    // Each GPU's envelope, clipped to its panel.
    g.save();
    g.beginPath();
    g.rect(LAYOUT.left, top, plotWidth, LAYOUT.panelHeight);
    g.clip();
    panel.gpus.forEach((series, n) => {
      g.strokeStyle = SERIES[n % SERIES.length];
      g.lineWidth = 1;
      g.beginPath();
      for (const stroke of strokes(series, values)) {
        stroke.forEach(([c, v], i) => (i === 0 ? g.moveTo(xOfColumn(c), yOf(v)) : g.lineTo(xOfColumn(c), yOf(v))));
      }
      g.stroke();
    });
    g.strokeStyle = INTERRUPTION;
    g.lineWidth = 2;
    for (const mark of view.interruptions) {
      const x = xOfTime(mark.at_ms);
      if (x < LAYOUT.left || x > LAYOUT.left + plotWidth) continue;
      g.beginPath();
      g.moveTo(x, top);
      g.lineTo(x, bottom);
      g.stroke();
    }
    g.restore();
  }
  return spent + performance.now() - started;
}
