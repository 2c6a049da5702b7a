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
export function duration(seconds: number): string {
  if (seconds < 120) return `${seconds.toFixed(1)} s`;
  const total = Math.round(seconds);
  if (total < 3600) return `${Math.floor(total / 60)} min ${total % 60} s`;
  const minutes = Math.round(total / 60);
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A measured figure to three significant digits ("771", "53.1", "0.118"),
 * as the command line and the report print it. */
export function figure(v: number): string {
  const a = Math.abs(v);
  return v.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}
