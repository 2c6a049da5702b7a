// The Runs list's filters: pure, so Vitest checks them without a window.

export interface RunFilter {
  platform: string; // "" = every platform
  kind: string; // "" = every kind
  text: string; // matched against file, format and source, case-insensitive
}

export interface FilterableRun {
  platform: string;
  kind: string;
  file: string | null;
  format: string | null;
  source: string;
}

export function filterRuns<T extends FilterableRun>(runs: T[], f: RunFilter): T[] {
  const needle = f.text.trim().toLowerCase();
  return runs.filter((r) =>
    (!f.platform || r.platform === f.platform) &&
    (!f.kind || r.kind === f.kind) &&
    (!needle || [r.file, r.format, r.source].some((s) => s?.toLowerCase().includes(needle))));
}

/** The distinct values of a field, sorted, for a filter's options. */
export function distinct<T>(runs: T[], key: (r: T) => string): string[] {
  return [...new Set(runs.map(key))].sort((a, b) => a.localeCompare(b));
}

// The Rankings matrix's order and name filter, also pure.

/** A column of the matrix to sort by: rank, name, a breakpoint (0–3), overall, coverage or runs. */
export type MatrixKey = "rank" | "name" | 0 | 1 | 2 | 3 | "overall" | "coverage" | "evidence";

export interface MatrixSort {
  key: MatrixKey;
  descending: boolean;
}

export interface SortableRow {
  name: string;
  rank: number | null;
  overall: number | null;
  coverage: number;
  scores: Array<number | null>;
  evidence: number;
}

/** How a column first sorts when clicked: names A→Z, ranks 1→n, scores best first. */
export function firstDirection(key: MatrixKey): boolean {
  return !(key === "rank" || key === "name");
}

/**
 * Rows in the order the user asked for. A missing value (no rank, not
 * measured) goes last in either direction: it is not a low score. Ties keep
 * the ranking's order.
 */
export function sortMatrix<T extends SortableRow>(rows: T[], sort: MatrixSort): T[] {
  const valueOf = (r: T): number | string | null => {
    switch (sort.key) {
      case "rank": return r.rank;
      case "name": return r.name;
      case "overall": return r.overall;
      case "coverage": return r.coverage;
      case "evidence": return r.evidence;
      default: return r.scores[sort.key] ?? null;
    }
  };
  return rows
    .map((row, index) => ({ row, index, v: valueOf(row) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.index - b.index : a.v === null ? 1 : -1;
      const order = typeof a.v === "string" ? a.v.localeCompare(b.v as string) : (a.v as number) - (b.v as number);
      return (sort.descending ? -order : order) || a.index - b.index;
    })
    .map((x) => x.row);
}

/** Rows whose name holds the text, case-insensitive; all of them for an empty text. */
export function filterByName<T extends { name: string }>(rows: T[], text: string): T[] {
  const needle = text.trim().toLowerCase();
  return needle ? rows.filter((r) => r.name.toLowerCase().includes(needle)) : rows;
}
