import { describe, expect, it } from "vitest";
import { distinct, filterByName, filterRuns, firstDirection, sortMatrix } from "../src/filters";

const runs = [
  { id: 1, platform: "阿里云", kind: "sustain", file: "gpu.csv", format: "nvidia-smi-csv", source: "import" },
  { id: 2, platform: "阿里云", kind: "startup", file: "attempts.csv", format: "startup-attempts", source: "import" },
  { id: 3, platform: "AutoDL", kind: "sustain", file: null, format: "probe-log", source: "probe" },
];

describe("run filters", () => {
  it("keeps everything when no filter is set", () => {
    expect(filterRuns(runs, { platform: "", kind: "", text: "" })).toHaveLength(3);
  });

  it("combines platform, kind and text", () => {
    expect(filterRuns(runs, { platform: "阿里云", kind: "", text: "" }).map((r) => r.id)).toEqual([1, 2]);
    expect(filterRuns(runs, { platform: "", kind: "sustain", text: "" }).map((r) => r.id)).toEqual([1, 3]);
    expect(filterRuns(runs, { platform: "", kind: "", text: " PROBE " }).map((r) => r.id)).toEqual([3]);
    expect(filterRuns(runs, { platform: "阿里云", kind: "sustain", text: "attempts" })).toEqual([]);
  });

  it("lists distinct values sorted", () => {
    expect(distinct(runs, (r) => r.kind)).toEqual(["startup", "sustain"]);
  });
});

describe("the rankings matrix", () => {
  const rows = [
    { name: "Platform B", rank: 2, overall: 70, coverage: 0.9, scores: [80, null, 60, 50], evidence: 4 },
    { name: "阿里云 A100", rank: 1, overall: 81, coverage: 1, scores: [60, 90, null, 70], evidence: 9 },
    { name: "platform c", rank: null, overall: null, coverage: 0.2, scores: [null, null, null, 95], evidence: 1 },
    { name: "Platform A", rank: 3, overall: 55, coverage: 0.9, scores: [99, 40, 61, 20], evidence: 4 },
  ];
  const names = (r: typeof rows) => r.map((x) => x.name);

  it("sorts by rank with the unranked last, either way", () => {
    expect(names(sortMatrix(rows, { key: "rank", descending: false }))).toEqual(["阿里云 A100", "Platform B", "Platform A", "platform c"]);
    expect(names(sortMatrix(rows, { key: "rank", descending: true }))).toEqual(["Platform A", "Platform B", "阿里云 A100", "platform c"]);
  });

  it("sorts a breakpoint best first with the unmeasured last, ties in ranking order", () => {
    expect(names(sortMatrix(rows, { key: 0, descending: true }))).toEqual(["Platform A", "Platform B", "阿里云 A100", "platform c"]);
    expect(names(sortMatrix(rows, { key: 1, descending: true }))).toEqual(["阿里云 A100", "Platform A", "Platform B", "platform c"]);
    expect(names(sortMatrix(rows, { key: "coverage", descending: true }))).toEqual(["阿里云 A100", "Platform B", "Platform A", "platform c"]);
  });

  it("sorts names alphabetically and columns start in their natural direction", () => {
    expect(names(sortMatrix(rows, { key: "name", descending: false }))[0]).toBe("Platform A");
    expect(firstDirection("name")).toBe(false);
    expect(firstDirection("rank")).toBe(false);
    expect(firstDirection(2)).toBe(true);
  });

  it("filters by name, case-insensitive", () => {
    expect(names(filterByName(rows, " PLATFORM "))).toEqual(["Platform B", "platform c", "Platform A"]);
    expect(names(filterByName(rows, "阿里"))).toEqual(["阿里云 A100"]);
    expect(filterByName(rows, "")).toHaveLength(4);
  });
});
