import { describe, expect, it } from "vitest";
import { authLink, courseAccessLevel, grantedLessonsLabel, lessonCountLabel, lessonRefusal } from "./access";

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

describe("lessonRefusal", () => {
  const now = new Date(2025, 11, 1, 9, 0);
  it("says a missing lesson is not found", () => {
    expect(lessonRefusal(null, now)).toEqual({ title: "Contenu introuvable", description: "Cette leçon n'existe pas ou a été supprimée.", courseId: null });
  });
  it("says when a locked lesson opens", () => {
    const r = lessonRefusal({ course_id: "c", unlocked: false, unlocks_at: new Date(2025, 11, 12, 15, 4).toISOString() }, now);
    expect(r.title).toBe("Vous n'avez pas accès à ce contenu");
    expect(r.description).toBe("Cette leçon n'est pas encore débloquée. Elle sera disponible le 12 décembre à 15:04.");
    expect(r.courseId).toBe("c");
  });
  it("sends to the teacher without course access", () => {
    expect(lessonRefusal({ course_id: "c", unlocked: null, unlocks_at: null }, now).description).toBe("Contactez le professeur pour obtenir l'accès à ce cours.");
  });
});

describe("authLink", () => {
  it("comes back to the course after signing in or up", () => {
    expect(authLink("/connexion", "/course/abc")).toBe("/connexion?next=%2Fcourse%2Fabc");
    expect(authLink("/inscription", "/cours-detail/abc")).toBe("/inscription?next=%2Fcours-detail%2Fabc");
  });
});

describe("lessonCountLabel", () => {
  it("agrees in number", () => {
    expect(lessonCountLabel(1)).toBe("1 leçon");
    expect(lessonCountLabel(3)).toBe("3 leçons");
  });
});
