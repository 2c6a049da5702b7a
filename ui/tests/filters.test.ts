import { describe, expect, it } from "vitest";
import { distinct, filterRuns } from "../src/filters";

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
