import { describe, expect, it } from "vitest";
import { extent, polyline } from "../src/chart";

describe("live chart maths", () => {
  it("includes zero and never collapses to a flat box", () => {
    expect(extent([])).toEqual({ x0: 0, x1: 1, y0: 0, y1: 1 });
    expect(extent([[[1000, 250], [2000, 250]]])).toEqual({ x0: 1000, x1: 2000, y0: 0, y1: 250 });
    expect(extent([[[5, 0]]])).toEqual({ x0: 5, x1: 6, y0: 0, y1: 1 });
  });

  it("maps the corners of the extent to the corners of the box", () => {
    const e = { x0: 0, x1: 10, y0: 0, y1: 100 };
    expect(polyline([[0, 0], [10, 100], [5, 50]], e, 200, 100)).toBe("0.0,100.0 200.0,0.0 100.0,50.0");
  });
});
