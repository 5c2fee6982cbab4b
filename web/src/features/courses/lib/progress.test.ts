import { describe, expect, it } from "vitest";
import { carouselSlides, courseProgress, lessonState } from "./progress";

describe("courseProgress", () => {
  it("gives completed/total with a percentage", () => {
    expect(courseProgress(1, 3)).toEqual({ completed: 1, total: 3, percent: 33, done: false });
    expect(courseProgress(2, 3).percent).toBe(67);
  });
  it("is done at 100 %", () => {
    expect(courseProgress(4, 4)).toEqual({ completed: 4, total: 4, percent: 100, done: true });
  });
  it("handles an empty course and over-counting", () => {
    expect(courseProgress(0, 0)).toEqual({ completed: 0, total: 0, percent: 0, done: false });
    expect(courseProgress(7, 4).percent).toBe(100);
  });
});

describe("lessonState", () => {
  const completed = new Set(["a"]);
  const viewed = new Set(["a", "b"]);
  it("prefers completed over viewed", () => {
    expect(lessonState("a", completed, viewed)).toBe("completed");
    expect(lessonState("b", completed, viewed)).toBe("viewed");
    expect(lessonState("c", completed, viewed)).toBe("unviewed");
  });
});

describe("carouselSlides", () => {
  const items = Array.from({ length: 10 }, (_, i) => i + 1);
  it("shows 4 per slide on mobile and 8 on desktop", () => {
    expect(carouselSlides(items, 375).map((s) => s.length)).toEqual([4, 4, 2]);
    expect(carouselSlides(items, 767).length).toBe(3);
    expect(carouselSlides(items, 768).map((s) => s.length)).toEqual([8, 2]);
    expect(carouselSlides([], 1280)).toEqual([]);
  });
});
