// Formatting and small calculations the views share (unit-tested).

export const BREAKPOINTS = ["startup", "sustain", "switch", "billing"] as const;
export type BreakpointName = (typeof BREAKPOINTS)[number];

export function score(v: number | null | undefined): string {
  return v === null || v === undefined ? "–" : v.toFixed(1);
}

export function percent(v: number, digits = 0): string {
  return `${(100 * v).toFixed(digits)} %`;
}

/** Slider positions (any scale) as shares that sum to 1. */
export function shares(weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + Math.max(0, b), 0);
  return total > 0 ? weights.map((w) => Math.max(0, w) / total) : weights.map(() => 1 / weights.length);
}

/** A metric value with its unit, compact: 1.2e-5 rel. L2, 38.4 %, 1320 s. */
export function value(v: number | null, unit: string): string {
  if (v === null) return "not measured";
  const n = v !== 0 && Math.abs(v) < 0.01 ? v.toExponential(1) : Math.abs(v) >= 1000 ? v.toFixed(0) : String(Math.round(v * 100) / 100);
  if (unit === "%") return `${n} %`;
  if (unit === "count" || unit === "steps") return n;
  return `${n} ${unit}`;
}

/** Background for a score cell on a colour-blind-safe scale (cividis-like). */
export function scoreColour(s: number | null): string {
  if (s === null) return "var(--unmeasured)";
  const t = Math.min(1, Math.max(0, s / 100));
  const stops: [number, number[]][] = [
    [0, [0x00, 0x22, 0x4e]],
    [0.5, [0x7c, 0x7b, 0x78]],
    [1, [0xfe, 0xe8, 0x38]],
  ];
  const [a, b] = t <= 0.5 ? [stops[0], stops[1]] : [stops[1], stops[2]];
  const u = (t - a[0]) / (b[0] - a[0]);
  const c = a[1].map((x, i) => Math.round(x + (b[1][i] - x) * u));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

export function textOn(s: number | null): string {
  return s !== null && s < 55 ? "#fff" : "#222";
}

/** Order of platform names, for comparing rankings. */
export function order(rows: { name: string }[]): string[] {
  return rows.map((r) => r.name);
}

/** Calls of `fn` folded together: the first runs at once (once the
 *  calling task is over, so that changes made together run together); calls
 *  while it runs, or within `ms` of its start, become one more run after it,
 *  which reads the state as it is then. Runs never overlap, so an answer
 *  never lands after a newer one. A slider redraws as soon as its first move
 *  is ranked, not after a pause, and a drag does not queue a ranking per
 *  step. */
export function coalesce(fn: () => Promise<void>, ms: number): () => void {
  let busy = false;
  let again = false;
  const run = async () => {
    const started = performance.now();
    try {
      await fn();
    } finally {
      setTimeout(() => {
        busy = false;
        if (again) {
          again = false;
          busy = true;
          void run();
        }
      }, Math.max(0, ms - (performance.now() - started)));
    }
  };
  return () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    setTimeout(() => void run(), 0);
  };
}

/** A duration for people: tenths under two minutes, then whole minutes
 *  and seconds, then hours and minutes (a training run can last days). */
/** A number as the API's presentation::number says it: three significant
 * digits below a hundred, whole above, no exponent ("42.3", "0.84"). */
export function number(v: number): string {
  if (!Number.isFinite(v)) return "–";
  const a = Math.abs(v);
  if (a === 0) return "0";
  if (a >= 100) return v.toFixed(0);
  const digits = Math.min(12, Math.max(0, 2 - Math.floor(Math.log10(a))));
  const text = v.toFixed(digits);
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

export function duration(seconds: number): string {
  // The grammar of the API's presentation::elapsed, for the clocks that tick
  // here: "42.3 s", "4 min 5 s", "2 h 17 min", "3 d 4 h".
  if (!Number.isFinite(seconds) || seconds < 0) return "–";
  if (seconds < 59.95) return `${number(seconds)} s`;
  const s = Math.round(seconds);
  if (s < 3600) return s % 60 === 0 ? `${s / 60} min` : `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) {
    const minutes = Math.floor((s + 30) / 60);
    return minutes % 60 === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  }
  const hours = Math.floor((s + 1800) / 3600);
  return hours % 24 === 0 ? `${hours / 24} d` : `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** A measured figure to three significant digits ("771", "53.1", "0.118"),
 * as the command line and the report print it. */
export function figure(v: number): string {
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}
