import { describe, expect, it } from "vitest";
import { parseWholeNumber, previewSentence, scheduleSummary, validateSchedule } from "./schedule";

describe("unlock schedule validation", () => {
  it("refuses 0 / 0 / -1 with a French message per field", () => {
    const check = validateSchedule({ unlock_interval_days: "0", lessons_per_unlock: "0", start_delay_days: "-1" });
    expect(check).toEqual({
      ok: false,
      errors: {
        unlock_interval_days: "L'intervalle doit être d'au moins 1 jour.",
        lessons_per_unlock: "Il faut débloquer au moins 1 leçon à la fois.",
        start_delay_days: "Le délai ne peut pas être négatif.",
      },
    });
  });
  it("refuses what is not a whole number and what the database would refuse", () => {
    const check = validateSchedule({ unlock_interval_days: "", lessons_per_unlock: "2.5", start_delay_days: "366" });
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.errors.unlock_interval_days).toBe("Saisissez un nombre entier.");
      expect(check.errors.lessons_per_unlock).toBe("Saisissez un nombre entier.");
      expect(check.errors.start_delay_days).toBe("Le délai ne peut pas dépasser 365 jours.");
    }
    expect(validateSchedule({ unlock_interval_days: "366", lessons_per_unlock: "101", start_delay_days: "0" }).ok).toBe(false);
  });
  it("accepts the bounds", () => {
    expect(validateSchedule({ unlock_interval_days: "1", lessons_per_unlock: "1", start_delay_days: "0" })).toEqual({
      ok: true, values: { unlock_interval_days: 1, lessons_per_unlock: 1, start_delay_days: 0 },
    });
    expect(validateSchedule({ unlock_interval_days: " 365 ", lessons_per_unlock: "100", start_delay_days: "365" }).ok).toBe(true);
  });
  it("parses whole numbers only", () => {
    expect([" 3 ", "-1", "abc", "1e3", "0x10", ""].map(parseWholeNumber)).toEqual([3, -1, null, null, null, null]);
  });
});

describe("unlock schedule wording", () => {
  it("agrees in number", () => {
    expect(scheduleSummary({ unlock_interval_days: 1, lessons_per_unlock: 1, start_delay_days: 0 })).toBe("1 leçon tous les jours");
    expect(scheduleSummary({ unlock_interval_days: 3, lessons_per_unlock: 2, start_delay_days: 0 })).toBe("2 leçons tous les 3 jours");
    expect(scheduleSummary({ unlock_interval_days: 2, lessons_per_unlock: 1, start_delay_days: 1 })).toBe("1 leçon tous les 2 jours, la première fois 1 jour après l'accès");
    expect(scheduleSummary({ unlock_interval_days: 7, lessons_per_unlock: 3, start_delay_days: 5 })).toBe("3 leçons tous les 7 jours, la première fois 5 jours après l'accès");
  });
  it("words the preview", () => {
    expect(previewSentence(0, 1, 4)).toBe("Le jour de l'accès, un apprenant a 1 leçon débloquée sur 4.");
    expect(previewSentence(3, 2, 4)).toBe("Après 3 jours d'accès, un apprenant a 2 leçons débloquées sur 4.");
    expect(previewSentence(1, 0, 4)).toBe("Après 1 jour d'accès, un apprenant a 0 leçon débloquée sur 4.");
  });
});
