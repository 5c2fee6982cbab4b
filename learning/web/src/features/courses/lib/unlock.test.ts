import { describe, expect, it } from "vitest";
import { lockedLabel, nextUnlock, shortUnlockDate, unlockDate, type OutlineLesson } from "./unlock";

const lesson = (position: number, unlocked: boolean, unlocks_at: string | null): OutlineLesson => ({
  id: `l${position}`, title: `Leçon ${position}`, file_type: "pdf", lesson_position: position, unlocked, unlocks_at,
});

describe("unlock wording", () => {
  const now = new Date(2025, 11, 1, 9, 0);
  it("says when a locked lesson opens, in French", () => {
    expect(lockedLabel({ unlocks_at: new Date(2025, 11, 12, 15, 4).toISOString() }, now)).toBe("Disponible le 12 décembre à 15:04");
    expect(lockedLabel({ unlocks_at: new Date(2026, 0, 3, 8, 30).toISOString() }, now)).toBe("Disponible le 3 janvier 2026 à 08:30");
    expect(lockedLabel({ unlocks_at: null }, now)).toBe("Verrouillée");
    expect(unlockDate("not a date", now)).toBe("");
    expect(shortUnlockDate(new Date(2025, 11, 12).toISOString())).toBe("12 déc.");
  });
  it("finds the next lesson to open", () => {
    const outline = [lesson(1, true, null), lesson(2, false, "2025-12-14T10:00:00Z"), lesson(3, false, "2025-12-12T10:00:00Z"), lesson(4, false, null)];
    expect(nextUnlock(outline)?.id).toBe("l3");
    expect(nextUnlock([lesson(1, true, null)])).toBeNull();
  });
});
