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
