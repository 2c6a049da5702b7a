import { describe, expect, it } from "vitest";
import { duration, order, percent, score, scoreColour, shares, textOn, value } from "../src/format";
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
  it("say every word in both languages", () => {
    expect(Object.keys(dictionaries.zh).sort()).toEqual(Object.keys(dictionaries.en).sort());
    for (const v of Object.values(dictionaries.zh)) expect(v.length).toBeGreaterThan(0);
  });

  it("shows durations at a precision people read", () => {
    expect(duration(0.25)).toBe("0.3 s");
    expect(duration(119.94)).toBe("119.9 s");
    expect(duration(179.6)).toBe("3 min 0 s");
    expect(duration(3599.4)).toBe("59 min 59 s");
    expect(duration(3600)).toBe("1 h 0 min");
    expect(duration(2 * 86400 + 3 * 3600 + 59 * 60 + 50)).toBe("52 h 0 min");
  });
});
