// A small live line chart built from SVG elements (never from markup),
// for the probe's power trace. The maths is pure and tested with Vitest.

export type Point = [number, number];

export interface Extent {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The bounds of every point; a flat or empty series still gets a usable box. */
export function extent(series: Point[][]): Extent {
  const all = series.flat();
  if (!all.length) return { x0: 0, x1: 1, y0: 0, y1: 1 };
  const x0 = Math.min(...all.map((p) => p[0]));
  let x1 = Math.max(...all.map((p) => p[0]));
  const y0 = Math.min(0, ...all.map((p) => p[1]));
  let y1 = Math.max(...all.map((p) => p[1]));
  if (x1 === x0) x1 = x0 + 1;
  if (y1 === y0) y1 = y0 + 1;
  return { x0, x1, y0, y1 };
}

/** SVG polyline points for a series inside a width × height box (y grows downwards). */
export function polyline(points: Point[], e: Extent, width: number, height: number): string {
  return points
    .map(([x, y]) => `${(((x - e.x0) / (e.x1 - e.x0)) * width).toFixed(1)},${(height - ((y - e.y0) / (e.y1 - e.y0)) * height).toFixed(1)}`)
    .join(" ");
}

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#0b6fa4", "#c2410c", "#15803d", "#7e22ce", "#b45309", "#0e7490", "#be123c", "#4d7c0f"];

function el(name: string, attrs: Record<string, string | number>): SVGElement {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/** Draws one line per series; labels are text nodes. */
export function lineChart(series: Point[][], labels: string[], unit: string, width = 720, height = 220,
  xLabel: (e: Extent) => string = (e) => `${((e.x1 - e.x0) / 1000).toFixed(0)} s`): SVGSVGElement {
  const pad = { left: 48, bottom: 22, top: 8, right: 8 };
  const w = width - pad.left - pad.right;
  const h = height - pad.top - pad.bottom;
  const e = extent(series);
  const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "chart" }) as SVGSVGElement;
  const plot = el("g", { transform: `translate(${pad.left},${pad.top})` });
  plot.append(el("rect", { x: 0, y: 0, width: w, height: h, fill: "none", stroke: "#cbd5e1" }));
  for (const [y, anchor] of [[e.y1, 10], [e.y0, h]] as const) {
    const label = el("text", { x: -6, y: anchor, "text-anchor": "end", "font-size": 11, fill: "#475569" });
    label.textContent = `${Math.abs(y) >= 10 || y === 0 ? Math.round(y) : Number(y.toPrecision(2))} ${unit}`;
    plot.append(label);
  }
  const seconds = el("text", { x: w, y: h + 16, "text-anchor": "end", "font-size": 11, fill: "#475569" });
  seconds.textContent = xLabel(e);
  plot.append(seconds);
  series.forEach((points, i) => {
    const line = el("polyline", { points: polyline(points, e, w, h), fill: "none", stroke: COLOURS[i % COLOURS.length], "stroke-width": 1.5 });
    const title = el("title", {});
    title.textContent = labels[i] ?? "";
    line.append(title);
    plot.append(line);
  });
  svg.append(plot);
  return svg;
}
