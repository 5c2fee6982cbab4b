import { describe, expect, it } from "vitest";
import { carouselSlides, isUpToDate, lessonState, noProgress, progressText, type CourseProgress } from "./progress";

const p = (watched: number, unlocked: number, lessons: number, percent: number, completed = false): CourseProgress => ({
  course_id: "c",
  watched_count: watched,
  unlocked_count: unlocked,
  lesson_count: lessons,
  percent,
  completed,
});

describe("progressText", () => {
  it("says watched over unlocked with the server's percentage", () => {
    expect(progressText(p(2, 3, 3, 66))).toBe("2/3 leçons vues · 66 %");
    expect(progressText(p(0, 1, 4, 0))).toBe("0/1 leçon vue · 0 %");
    expect(progressText(noProgress("c"))).toBe("0/0 leçon vue · 0 %");
  });
});

describe("isUpToDate", () => {
  it("is every unlocked lesson watched while some are still locked", () => {
    expect(isUpToDate(p(1, 1, 4, 100))).toBe(true);
    expect(isUpToDate(p(4, 4, 4, 100, true))).toBe(false);
    expect(isUpToDate(p(0, 1, 4, 0))).toBe(false);
    expect(isUpToDate(noProgress("c"))).toBe(false);
  });
});

describe("lessonState", () => {
  it("is watched only for a lesson the learner opened (a grant is not a view)", () => {
    const watched = new Set(["a"]);
    expect(lessonState("a", watched)).toBe("watched");
    expect(lessonState("b", watched)).toBe("unviewed");
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
