import { describe, expect, it } from "vitest";
import { coverFileName, coverSize } from "./cover-size";

describe("coverSize", () => {
  it("scales wide images down to 300 px keeping the ratio", () => {
    expect(coverSize(1920, 1080)).toEqual({ width: 300, height: 169 });
    expect(coverSize(600, 900)).toEqual({ width: 300, height: 450 });
    expect(coverSize(3000, 1)).toEqual({ width: 300, height: 1 });
  });
  it("never scales up", () => {
    expect(coverSize(300, 200)).toEqual({ width: 300, height: 200 });
    expect(coverSize(120, 80)).toEqual({ width: 120, height: 80 });
  });
  it("refuses empty images", () => {
    expect(() => coverSize(0, 10)).toThrow();
  });
  it("names covers as JPEGs", () => {
    expect(coverFileName("ma couverture.png")).toBe("ma_couverture.jpg");
    expect(coverFileName("x")).toBe("x.jpg");
  });
});
