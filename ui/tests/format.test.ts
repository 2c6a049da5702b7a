import { describe, expect, it, vi } from "vitest";
import { coalesce, duration, number, order, percent, score, scoreColour, shares, textOn, value } from "../src/format";
import { dictionaries } from "../src/i18n";

describe("formatting", () => {
  it("never shows an unmeasured score as a number", () => {
    expect(score(null)).toBe("–");
    expect(score(81.46)).toBe("81.5");
    expect(scoreColour(null)).toContain("var(--unmeasured)");
    expect(scoreColour(0)).not.toBe(scoreColour(null));
  });

  it("normalises slider weights into shares", () => {
    expect(shares([1, 1, 1, 1])).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(shares([0, 0, 0, 0])).toEqual([0.25, 0.25, 0.25, 0.25]);
    const s = shares([50, 0, 25, 25]);
    expect(s.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
    expect(s[0]).toBeCloseTo(0.5);
  });

  it("formats values with their units", () => {
    expect(value(null, "%")).toBe("not measured");
    expect(value(75.949, "%")).toBe("75.95 %");
    expect(value(0.00005, "rel. L2")).toBe("5.0e-5 rel. L2");
    expect(value(1320, "s")).toBe("1320 s");
    expect(value(1, "count")).toBe("1");
    expect(percent(0.5)).toBe("50 %");
  });

  it("keeps text readable on score colours", () => {
    expect(textOn(10)).toBe("#fff");
    expect(textOn(90)).toBe("#222");
    expect(order([{ name: "b" }, { name: "a" }])).toEqual(["b", "a"]);
  });
});

describe("translations", () => {
  // Both dictionaries have the same keys by their type (tsc); what the
  // type cannot say is that no Chinese word was left empty.
  it("say every word in both languages", () => {
    for (const v of Object.values(dictionaries.zh)) expect(v.trim().length).toBeGreaterThan(0);
  });

  it("says an elapsed time in the grammar of the API's presentation::elapsed", () => {
    // The same cases as breakpoint_model::figures's test.
    const cases: [number, string][] = [
      [0, "0 s"], [0.84, "0.84 s"], [42.34, "42.3 s"], [59.99, "1 min"], [61, "1 min 1 s"],
      [245, "4 min 5 s"], [3600, "1 h"], [8220, "2 h 17 min"], [86_399, "24 h"], [90_000, "1 d 1 h"], [Number.NaN, "–"],
    ];
    for (const [s, said] of cases) expect(duration(s)).toBe(said);
    expect(number(6.88)).toBe("6.88");
    expect(number(0.00421)).toBe("0.00421");
    expect(number(26751)).toBe("26751");
  });
});

describe("coalesced calls", () => {
  it("run the first at once, fold the rest into one run after it, and never overlap", async () => {
    vi.useFakeTimers();
    try {
      const seen: number[] = [];
      let value = 0;
      let running = 0;
      let overlapped = false;
      const refresh = coalesce(async () => {
        running += 1;
        overlapped ||= running > 1;
        seen.push(value);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running -= 1;
      }, 40);
      value = 1;
      refresh();
      value = 2;
      refresh();
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toEqual([2]); // changes made together run together, at once
      value = 3;
      refresh();
      value = 4;
      refresh();
      await vi.advanceTimersByTimeAsync(39);
      expect(seen).toEqual([2]); // within the window: folded, not yet run
      await vi.advanceTimersByTimeAsync(1);
      expect(seen).toEqual([2, 4]); // one more run, with the latest state
      await vi.advanceTimersByTimeAsync(200);
      expect(seen).toEqual([2, 4]);
      expect(overlapped).toBe(false);
      value = 5;
      refresh();
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toEqual([2, 4, 5]); // idle again: at once
    } finally {
      vi.useRealTimers();
    }
  });
});
