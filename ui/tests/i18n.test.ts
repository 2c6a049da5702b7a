import { describe, expect, it, vi } from "vitest";
import { setLanguage, tf } from "../src/i18n";

describe("i18n", () => {
  it("fills named places where each language puts them", () => {
    // setLanguage marks the page's language; the tests have no page.
    vi.stubGlobal("document", { documentElement: { lang: "" } });
    setLanguage("en");
    expect(tf("abovePeers", { pct: 80, n: 5 })).toBe("above 80 % of 5 other(s)");
    setLanguage("zh");
    // The Chinese sentence names the count after the share, as English does not.
    expect(tf("abovePeers", { pct: 80, n: 5 })).toBe("高于 80 % 的其他平台（共 5 个）");
    // A place without a value stays visible rather than vanishing.
    expect(tf("trailsBy", { test: "gemm bf16" })).toContain("{pct}");
    setLanguage("en");
    vi.unstubAllGlobals();
  });
});
