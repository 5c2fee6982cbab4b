import { describe, expect, it } from "vitest";
import { clampScheduleField, unlockedLessonCount, wholeDaysBetween } from "./schedule";

describe("unlock schedule", () => {
  it("applies the minimums 1/1/0 and the defaults", () => {
    expect(clampScheduleField("unlock_interval_days", "0")).toBe(1);
    expect(clampScheduleField("lessons_per_unlock", "-3")).toBe(1);
    expect(clampScheduleField("start_delay_days", "-1")).toBe(0);
    expect(clampScheduleField("unlock_interval_days", "abc")).toBe(1);
    expect(clampScheduleField("start_delay_days", "4")).toBe(4);
  });
  it("unlocks per interval after the start delay", () => {
    const s = { unlock_interval_days: 2, lessons_per_unlock: 1, start_delay_days: 0 };
    expect([0, 1, 2, 3, 4].map((d) => unlockedLessonCount(d, s))).toEqual([1, 1, 2, 2, 3]);
    const delayed = { unlock_interval_days: 7, lessons_per_unlock: 3, start_delay_days: 2 };
    expect([0, 1, 2, 8, 9].map((d) => unlockedLessonCount(d, delayed))).toEqual([0, 0, 3, 3, 6]);
  });
  it("counts whole days", () => {
    expect(wholeDaysBetween(new Date("2025-01-01T10:00:00Z"), new Date("2025-01-03T09:00:00Z"))).toBe(1);
    expect(wholeDaysBetween(new Date("2025-01-03T00:00:00Z"), new Date("2025-01-01T00:00:00Z"))).toBe(0);
  });
});
