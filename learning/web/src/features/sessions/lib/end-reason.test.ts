import { describe, expect, it } from "vitest";
import { endedSessionText } from "./end-reason";
import { sessionIdOf } from "./current-session";

describe("endedSessionText", () => {
  it("tells who ended the session", () => {
    expect(endedSessionText("admin")).toBe("Votre session a été terminée par un administrateur.");
    expect(endedSessionText("user")).toBe("Votre session a été terminée depuis un autre de vos appareils.");
    expect(endedSessionText("expired")).toMatch(/expiré/);
    expect(endedSessionText(null)).toBe("Votre session a été terminée. Veuillez vous reconnecter.");
  });
});

describe("sessionIdOf", () => {
  const token = (claims: object) => `h.${btoa(JSON.stringify(claims)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")}.s`;
  it("reads the session_id claim", () => {
    expect(sessionIdOf(token({ sub: "u", session_id: "4e5d2f3a-0000-4000-8000-000000000001" }))).toBe("4e5d2f3a-0000-4000-8000-000000000001");
  });
  it("answers null for anything else", () => {
    expect(sessionIdOf(token({ sub: "u" }))).toBeNull();
    expect(sessionIdOf("garbage")).toBeNull();
    expect(sessionIdOf(null)).toBeNull();
  });
});
