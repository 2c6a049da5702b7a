import { describe, expect, it } from "vitest";
import { errorSlot, numberOrNull } from "../src/forms";

describe("form errors", () => {
  it("puts a message next to the field the core named", () => {
    expect(errorSlot("price_on_demand", ["accelerator", "price_on_demand", "form"])).toBe("price_on_demand");
  });

  it("falls back to the form for unknown or missing fields", () => {
    expect(errorSlot("vram_gib", ["accelerator", "form"])).toBe("form");
    expect(errorSlot(null, ["accelerator", "form"])).toBe("form");
  });

  it("reads empty number inputs as absent, not zero", () => {
    expect(numberOrNull("")).toBeNull();
    expect(numberOrNull("  ")).toBeNull();
    expect(numberOrNull("12.8")).toBe(12.8);
    expect(Number.isNaN(numberOrNull("abc"))).toBe(true);
  });
});
