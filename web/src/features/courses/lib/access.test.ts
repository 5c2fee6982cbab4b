import { describe, expect, it } from "vitest";
import { courseAccessLevel, grantedLessonsLabel, mayOpenLesson } from "./access";

describe("courseAccessLevel", () => {
  it("is full with course access, whatever the lessons", () => {
    expect(courseAccessLevel(true, 0)).toBe("full");
    expect(courseAccessLevel(true, 5)).toBe("full");
  });
  it("is lessons without course access when the server lists granted lessons", () => {
    expect(courseAccessLevel(false, 1)).toBe("lessons");
  });
  it("is none without course access nor visible lessons", () => {
    expect(courseAccessLevel(false, 0)).toBe("none");
  });
});

describe("grantedLessonsLabel", () => {
  it("agrees in number", () => {
    expect(grantedLessonsLabel(1)).toBe("1 leçon débloquée");
    expect(grantedLessonsLabel(2)).toBe("2 leçons débloquées");
  });
});

describe("mayOpenLesson", () => {
  const none = { isAdmin: false, isPublicCourse: false, hasCourseAccess: false, visibleIds: new Set<string>() };
  it("refuses a private lesson without any grant", () => {
    expect(mayOpenLesson("a", none)).toBe(false);
  });
  it("opens a lesson the server lists as visible (granted one by one)", () => {
    expect(mayOpenLesson("a", { ...none, visibleIds: new Set(["a"]) })).toBe(true);
    expect(mayOpenLesson("b", { ...none, visibleIds: new Set(["a"]) })).toBe(false);
  });
  it("opens for admins, public courses and course access", () => {
    expect(mayOpenLesson("a", { ...none, isAdmin: true })).toBe(true);
    expect(mayOpenLesson("a", { ...none, isPublicCourse: true })).toBe(true);
    expect(mayOpenLesson("a", { ...none, hasCourseAccess: true })).toBe(true);
  });
});
