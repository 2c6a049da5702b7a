import { describe, expect, it } from "vitest";
import type { TimelineView } from "../src/bindings/TimelineView";
import { decodeTimeline, plotColumns, selectedRange, shaded, strokes, timeTicks, valueRange, valueTicks, zoomedOut } from "../src/timeline";

const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 5, 7);

function view(start: number, end: number, span: [number, number] | null = [T0, T0 + 48 * HOUR - 1000]): TimelineView {
  return {
    run_id: 1, span, start_ms: start, end_ms: end, columns: 100,
    panels: [{
      field: "power_mw", unit: "W", scale: 1000,
      gpus: [{ gpu: 0, columns: [0, 1, 5, 6], at: 2, breaks: [5] }],
    }],
    throttle: [0, 1, 1, 0, 3, 2, 0],
    interruptions: [],
    samples: 16,
  };
}

/** Two values of another series first, then this one's four per column. */
const VALUES = Int32Array.from([7, 7, 250000, 240000, 912000, 251000, 250000, 249000, 252000, 250500, 60000, 60000, 61000, 60500, 61000, 60000, 62000, 61000]);

describe("the timeline's geometry", () => {
  it("reads the engine's bytes: the header, then the values in place", () => {
    const header = new TextEncoder().encode(JSON.stringify(view(T0, T0 + HOUR)));
    const padded = Math.ceil(header.length / 4) * 4;
    const bytes = new ArrayBuffer(4 + padded + 4 * VALUES.length);
    new DataView(bytes).setUint32(0, header.length, true);
    new Uint8Array(bytes, 4).set(header);
    new Uint8Array(bytes, 4 + header.length, padded - header.length).fill(32);
    VALUES.forEach((v, i) => new DataView(bytes).setInt32(4 + padded + 4 * i, v, true));
    const decoded = decodeTimeline(bytes);
    expect(decoded.view.panels[0].gpus[0].at).toBe(2);
    expect(Array.from(decoded.values)).toEqual(Array.from(VALUES));
  });

  it("asks for one column per pixel of the plot, within the engine's bounds", () => {
    expect(plotColumns(1000)).toBe(1000 - 64 - 12);
    expect(plotColumns(10)).toBe(16);
    expect(plotColumns(1e6)).toBe(8192);
  });

  it("reaches every column's extremes, in display units, with a margin", () => {
    const [lo, hi] = valueRange(view(T0, T0 + HOUR).panels[0], VALUES);
    expect(lo).toBeLessThanOrEqual(60);
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeGreaterThan(912);
  });

  it("breaks the line where an outage ended and bridges nothing else", () => {
    const s = strokes(view(T0, T0 + HOUR).panels[0].gpus[0], VALUES);
    expect(s.length).toBe(2);
    expect(s[0].map(([c]) => c)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(s[0][2]).toEqual([0, 912000]);
    expect(s[1][0]).toEqual([5, 60000]);
  });

  it("shades stretches of throttled columns by reason", () => {
    expect(shaded([0, 1, 1, 0, 3, 2, 0], 1)).toEqual([[1, 3], [4, 5]]);
    expect(shaded([0, 1, 1, 0, 3, 2, 0], 2)).toEqual([[4, 6]]);
    expect(shaded([2, 2], 2)).toEqual([[0, 2]]);
  });

  it("turns a selection into a time range, either way round and clamped", () => {
    const v = view(T0, T0 + 1000 * 1000);
    expect(selectedRange(v, 100, 300, 1000)).toEqual([T0 + 100_000, T0 + 300_000]);
    expect(selectedRange(v, 300, 100, 1000)).toEqual([T0 + 100_000, T0 + 300_000]);
    expect(selectedRange(v, -50, 2000, 1000)).toEqual([T0, T0 + 1000 * 1000]);
  });

  it("zooms out around the middle, within the run, and not past it", () => {
    const end = T0 + 48 * HOUR - 999; // one past the last sample
    expect(zoomedOut(view(T0 + 10 * HOUR, T0 + 12 * HOUR))).toEqual([T0 + 9 * HOUR, T0 + 13 * HOUR]);
    expect(zoomedOut(view(T0, T0 + 2 * HOUR))).toEqual([T0, T0 + 4 * HOUR]);
    expect(zoomedOut(view(end - 2 * HOUR, end))).toEqual([end - 4 * HOUR, end]);
    expect(zoomedOut(view(T0, end))).toBeNull();
    expect(zoomedOut(view(T0, T0 + HOUR, null))).toBeNull();
  });

  it("labels time at round steps, with the date at midnight", () => {
    const day = timeTicks(T0 - 6 * HOUR, T0 + 42 * HOUR, 10);
    expect(day.length).toBeLessThanOrEqual(10);
    expect(day.map((t) => t.label)).toContain("06-07");
    const minute = timeTicks(T0, T0 + 60_000, 6);
    expect(minute[1].label).toBe("00:00:10");
  });

  it("puts value ticks on round numbers", () => {
    expect(valueTicks(0, 1000)).toEqual([0, 250, 500, 750, 1000]);
    expect(valueTicks(43.2, 87.9)).toEqual([60, 80]);
  });
});
