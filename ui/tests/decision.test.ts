import { describe, expect, it } from "vitest";
import { jobSpec, type JobValues } from "../src/views/decision";

const blank: JobValues = {
  gpus: "8", kind: "work", work: "2000h", requests: "50M", perGpu: "120/s", horizon: "1y", utilisation: "60%",
  checkpoint: "30m", deadline: "", data: "", storage: "", precision: "bf16", mode: "cheapest", currency: "",
};

describe("the Decision screen's job", () => {
  it("writes the job as the CLI reads it, with only the work asked for", () => {
    expect(jobSpec(blank)).toBe("gpus=8,work=2000h,checkpoint=30m");
    expect(jobSpec({ ...blank, kind: "requests", deadline: " 14d " })).toBe("gpus=8,requests=50M,per-gpu=120/s,checkpoint=30m,deadline=14d");
    expect(jobSpec({ ...blank, kind: "horizon", data: "500GB", storage: "2TB" })).toBe("gpus=8,horizon=1y,utilisation=60%,checkpoint=30m,data=500GB,storage=2TB");
    expect(jobSpec({ ...blank, work: "2000h@A100-80GB", precision: "fp8" })).toBe("gpus=8,work=2000h@A100-80GB,checkpoint=30m,precision=fp8");
  });
});
